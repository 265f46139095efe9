// svc edit MESSAGE TEXT: replaces a message's text (and mentions), as its sender (--as, --human, an
// agent token) or, with none of them, as whoever the token proves: the sender, else an operator.

import type { Message, SendRequest } from '../../../protocol/types.js';
import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import type { AgentPick } from '../../agent-token.js';
import { splitList } from '../../options.js';
import { UsageError } from '../../target.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { messageText } from '../send/run.js';

/** Who changes a message: the flags of svc send, without its $USER default. */
export interface ChangerFlags extends ClientFlags {
  /** As this agent (the message's sender). */
  as?: string;
  /** As this person (the message's sender). */
  human?: string;
}

export interface EditFlags extends ChangerFlags {
  mention?: string[];
  expectVersion?: number;
}

/**
 * The `from` of an edit or delete: the agent an agent token names or --as names, the person --human
 * names; undefined when none is given, and the server takes the token's own agent, the sender the
 * token may speak as, or an operator (admin). Never $USER: an operator changing an agent's message
 * does not claim to be its sender.
 */
export function changer(flags: ChangerFlags, pick: AgentPick | undefined): SendRequest['from'] | undefined {
  if (flags.as !== undefined && flags.human !== undefined) throw new UsageError('--as and --human: pick one sender');
  if (flags.human !== undefined) return { type: 'human', id: flags.human };
  const agent = pick?.agentId ?? flags.as;
  return agent !== undefined ? { type: 'agent', id: agent } : undefined;
}

/** What acting as an agent needs of the credential, for withClient (as svc send). */
export const changerNeed = (flags: ChangerFlags) => ({
  agent: { agent: flags.as, flag: '--as' as const, infer: flags.human === undefined },
});

/** What svc read shows after a message's text: ` (edited)`, or `(deleted)` / `(redacted)` for a tombstone (it has no text). */
export function changeMark(m: Message): string {
  if (m.redacted_at !== undefined) return '(redacted)';
  if (m.deleted_at !== undefined) return '(deleted)';
  return m.edited_at !== undefined ? ' (edited)' : '';
}

export function editCommand(io: Io, messageId: string, words: string[], flags: EditFlags): Promise<number> {
  return withClient(
    io,
    'edit',
    flags,
    async (client, _t, pick) => {
      const from = changer(flags, pick);
      const text = await messageText(words);
      const mentions = splitList(flags.mention ?? []);
      const m = await client.editMessage(messageId, {
        text,
        ...(mentions.length > 0 ? { mentions } : {}),
        ...(from ? { from } : {}),
        ...(flags.expectVersion !== undefined ? { expect_version: flags.expectVersion } : {}),
      });
      if (flags.json) {
        io.out(json(m));
        return EXIT.ok;
      }
      io.out(`edited ${m.id}: now version ${m.version ?? 1} (earlier versions: svc versions ${m.id})`);
      return EXIT.ok;
    },
    changerNeed(flags),
  );
}
