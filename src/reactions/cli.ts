// svc react MESSAGE EMOJI [--remove]: adds or removes one reaction, as a person or an agent (--as),
// and prints the message's reactions after it. Also how `svc read` shows a message's reactions.

import type { ClientFlags, CommandKit } from '../feature-cli.js';
import type { Message, SendRequest } from '../protocol/types.js';

export interface ReactFlags extends ClientFlags {
  remove?: boolean;
  /** React as this agent; otherwise as a person (--human, $USER). */
  as?: string;
  human?: string;
}

export async function react(kit: CommandKit, messageId: string, emoji: string, flags: ReactFlags): Promise<number> {
  const { io } = kit;
  const w = await kit.work();
  return w.withClient(
    'react',
    flags,
    async (client, _t, agentId) => {
      // The sender rules of svc send: an agent token names its agent.
      const from: SendRequest['from'] =
        agentId !== undefined && flags.human === undefined ? { type: 'agent', id: agentId } : w.sender(flags);
      const r = await client.react(messageId, emoji, { ...(flags.remove ? { remove: true } : {}), from });
      if (flags.json) {
        io.out(w.json(r));
        return w.exit.ok;
      }
      const verb = flags.remove ? 'removed' : r.changed ? 'added' : 'already there:';
      const all = r.reactions.map((x) => `${x.emoji} ${x.count}`).join('  ');
      io.out(`${verb} ${emoji} on ${messageId} as ${r.by}${all ? ` · ${all}` : ' · no reactions'}`);
      return w.exit.ok;
    },
    { agent: flags.as, flag: '--as', infer: flags.human === undefined },
  );
}

/** A message's reactions as `svc read` shows them after its text: `  [👍 2  🎉 1]`. */
export function reactionsSuffix(m: Message): string {
  if (!m.reactions?.length) return '';
  return `  [${m.reactions.map((r) => `${r.emoji} ${r.count}`).join('  ')}]`;
}
