// Makes a remote A2A agent a member: its id claimed under the credential `a2a:<id>` (which marks
// the record as remote: the agents' view shows `kind: a2a`, and no token can speak as it), then
// added to each of its rooms. Like svc.yaml's rooms, this only adds: an agent or room dropped from
// the declaration keeps its record and memberships until an admin removes them.

import type { A2aAgentConfig } from '../../config/a2a-agents.js';
import { commit, now, type NetworkContext } from '../../network/context.js';
import { membersEvent } from '../../network/rooms.js';
import { newId } from '../../protocol/ids.js';
import type { Principal } from '../../auth/principal.js';
import type { Warning } from '../../protocol/types.js';
import { StoreError } from '../../store/types.js';

/** The credential a remote A2A agent's record is claimed under. */
export const a2aCredential = (id: string): string => `a2a:${id}`;

/** The principal svc posts a remote agent's replies with: it may speak only as that agent. */
export function a2aPrincipal(id: string): Principal {
  return { kind: 'agent', agentId: id, scopes: new Set(['write']), credentialKey: a2aCredential(id) };
}

/** Claims the agent and adds it to its rooms; answers what could not be done, as warnings. */
export async function ensureMember(ctx: NetworkContext, a: A2aAgentConfig): Promise<Warning[]> {
  const problems: Warning[] = [];
  const t = now();
  try {
    await commit(ctx, [
      {
        op: 'agent.claim',
        agent: {
          id: a.id,
          ...(a.name ? { name: a.name } : {}),
          actor_uid: newId('act'),
          credential_key: a2aCredential(a.id),
          created_at: t,
          updated_at: t,
        },
      },
    ]);
  } catch (err) {
    if (!(err instanceof StoreError && err.code === 'agent_taken')) throw err;
    return [
      {
        severity: 'warning',
        code: 'a2a_agent_id_taken',
        message: `A2A agent ${a.id} is not a member of any room: the agent id ${a.id} is registered to another credential`,
        action: `remove that agent (svc agents delete ${a.id}) or give the A2A agent another id`,
        docs_url: 'docs/a2a.md#outbound',
      },
    ];
  }
  for (const room of a.rooms) {
    const r = await ctx.store.getRoom(room);
    if (!r || r.removed_at) {
      problems.push({
        severity: 'warning',
        code: 'a2a_agent_room_missing',
        message: `A2A agent ${a.id} is not a member of room ${room}: there is no such room`,
        action: `create the room (rooms: in svc.yaml, or svc rooms create ${room}); the agent joins it at the next reload or apply`,
        docs_url: 'docs/a2a.md#outbound',
      });
      continue;
    }
    if (r.members.includes(a.id)) continue;
    await commit(ctx, [{ op: 'room.members.change', room_id: room, add: [a.id], remove: [], at: now(), event: membersEvent(ctx) }]);
  }
  return problems;
}
