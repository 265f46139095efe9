// The send answer's `unmentioned`: each mention candidate that resolved to no member of the
// conversation, why, and the command that fixes it. Resolution stays best-effort (the spec, Events >
// Mentions: nothing is rejected); this only tells the sender, who otherwise sees `sent` and a
// mention that woke nobody.

import { closestId } from '../protocol/closest-id.js';
import { isId } from '../protocol/ids.js';
import type { Unresolved } from '../protocol/mentions.js';
import type { Target, Unmentioned } from '../protocol/types.js';
import type { DecisionReads } from '../store/types.js';

/** At most this many are named per message: the text is the sender's and may hold thousands of `@`. */
export const UNMENTIONED_MAX = 10;

/**
 * Why each candidate was not mentioned, with its fix. `members` are the conversation's members as
 * stored (bare when local); reads tell a local agent that exists from one that does not.
 */
export async function explainUnmentioned(
  localNetwork: string,
  target: Target,
  members: readonly string[],
  unresolved: readonly Unresolved[],
  reads: Pick<DecisionReads, 'agent'>,
): Promise<Unmentioned[]> {
  const room = target.kind === 'dm' ? undefined : target.room_id;
  const where = room !== undefined ? `room ${room}` : `this DM`;
  const localMembers = members.filter((m) => !m.includes(':'));
  const out: Unmentioned[] = [];
  for (const u of unresolved) {
    if (u.scoped === undefined && !u.ambiguous) {
      out.push({
        id: u.candidate,
        reason: 'unknown_agent',
        detail: `${u.candidate} does not name an agent`,
        fix: 'mention an agent: @ID, @NETWORK:ID or <@svc://NETWORK/agents/ID>',
      });
      continue;
    }
    if (u.ambiguous || u.scoped === undefined) {
      out.push({
        id: u.candidate,
        reason: 'ambiguous',
        detail: `members of more than one network are called ${u.candidate}`,
        fix: `name its network: @<network_id>:${u.candidate}`,
      });
      continue;
    }
    const colon = u.scoped.indexOf(':');
    const net = u.scoped.slice(0, colon);
    const id = u.scoped.slice(colon + 1);
    const local = net === localNetwork;
    const member = local ? id : u.scoped;
    if (local && !(isId(id) && (await reads.agent(id)))) {
      const near = closestId(id, localMembers);
      out.push({
        id: member,
        reason: 'unknown_agent',
        detail: `no agent ${id} is registered on this network`,
        fix: near
          ? `did you mean @${near}?`
          : room !== undefined
            ? `register it (svc agents register --id ${id}), then add it: svc rooms members ${room} --add ${id}`
            : `register it: svc agents register --id ${id}`,
      });
      continue;
    }
    out.push(
      room !== undefined
        ? {
            id: member,
            reason: 'not_member',
            detail: `${member} is not a member of ${where}`,
            fix: `svc rooms members ${room} --add ${member}`,
          }
        : {
            id: member,
            reason: 'not_participant',
            detail: `${member} is not a participant of ${where} (a DM's participants are fixed)`,
            fix: `send it a DM: svc send --dm ${member} TEXT`,
          },
    );
  }
  return out;
}
