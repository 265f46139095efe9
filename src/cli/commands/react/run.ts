// svc react MESSAGE EMOJI [--remove]: adds or removes one reaction, as a person or an agent (--as),
// and prints the message's reactions after it.

import type { Message, SendRequest } from '../../../protocol/types.js';
import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { sender } from '../send/run.js';

export interface ReactFlags extends ClientFlags {
  remove?: boolean;
  /** React as this agent; otherwise as a person (--human, $USER). */
  as?: string;
  human?: string;
}

export function reactCommand(io: Io, messageId: string, emoji: string, flags: ReactFlags): Promise<number> {
  return withClient(
    io,
    'react',
    flags,
    async (client, _t, pick) => {
      // The sender rules of svc send: an agent token names its agent.
      const from: SendRequest['from'] =
        pick?.agentId !== undefined && flags.human === undefined ? { type: 'agent', id: pick.agentId } : sender(flags, io.env);
      const r = await client.react(messageId, emoji, { ...(flags.remove ? { remove: true } : {}), from });
      if (flags.json) {
        io.out(json(r));
        return EXIT.ok;
      }
      const verb = flags.remove ? 'removed' : r.changed ? 'added' : 'already there:';
      const all = r.reactions.map((x) => `${x.emoji} ${x.count}`).join('  ');
      io.out(`${verb} ${emoji} on ${messageId} as ${r.by}${all ? ` · ${all}` : ' · no reactions'}`);
      return EXIT.ok;
    },
    { agent: { agent: flags.as, flag: '--as', infer: flags.human === undefined } },
  );
}

/** A message's reactions as `svc read` shows them after its text: `  [👍 2  🎉 1]`. */
export function reactionsSuffix(m: Message): string {
  if (!m.reactions?.length) return '';
  return `  [${m.reactions.map((r) => `${r.emoji} ${r.count}`).join('  ')}]`;
}
