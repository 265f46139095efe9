// Records and intents for the store suites (test/store*.test.ts).

import type { ReactionChangeOp } from '../../src/store/reactions/ops.js';
import * as assert from 'uvu/assert';
import type { Artifact, Message, ServiceEvent, Target } from '../../src/protocol/types.js';
import {
  StoreError,
  convKeyOf,
  type AgentRecord,
  type MembersEvent,
  type MessageInsertOp,
  type RoomRecord,
  type RoomSpec,
  type Store,
  type WriteOp,
} from '../../src/store/types.js';

export const NET = 'net1';
const T0 = Date.parse('2024-05-01T00:00:00.000Z');
let clock = 0;
export const at = (): string => new Date(T0 + ++clock * 1000).toISOString();

export const inRoom = (room_id = 'r1'): Target => ({ kind: 'room', room_id });
export const inThread = (thread_id: string, room_id = 'r1'): Target => ({ kind: 'thread', room_id, thread_id });
export const inDm = (dm_id: string, participant_ids = ['net1:a', 'net1:b']): Target => ({ kind: 'dm', dm_id, participant_ids });

export function msg(id: string, target: Target = inRoom(), from = 'a1'): Message {
  return {
    id,
    network_id: NET,
    target,
    from: { type: 'agent', id: from, network_id: NET, fqid: `svc://${NET}/agents/${from}` },
    parts: [{ kind: 'text', text: `text of ${id}` }],
    mentions: [],
    created_at: at(),
  };
}

export const createdEvent = (m: Message): ServiceEvent => ({
  id: `ev-${m.id}`,
  type: 'message.created',
  network_id: NET,
  created_at: m.created_at,
  message: m,
});

let evn = 0;
export const event = (type: ServiceEvent['type'], fields: Partial<ServiceEvent> = {}): ServiceEvent => ({
  id: `e${++evn}`,
  type,
  network_id: NET,
  created_at: at(),
  ...fields,
});

/** The intent of a send: the message, its event, its conversation created or counted. */
export function send(m: Message, artifacts: Artifact[] = []): MessageInsertOp {
  const t = m.target;
  return {
    op: 'message.insert',
    record: { message: m, conv: convKeyOf(t), event_id: `ev-${m.id}` },
    event: createdEvent(m),
    artifacts,
    ...(t.kind === 'thread'
      ? {
          thread: {
            id: t.thread_id,
            room_id: t.room_id,
            ...(t.parent_message_id ? { parent_message_id: t.parent_message_id } : {}),
            created: (th) => event('thread.created', { room_id: th.room_id }),
          },
        }
      : {}),
    ...(t.kind === 'dm' ? { dm: { id: t.dm_id, participant_ids: t.participant_ids ?? [], created: () => event('dm.created') } } : {}),
  };
}

export const appendOp = (type: ServiceEvent['type'] = 'room.created', fields: Partial<ServiceEvent> = {}): WriteOp => ({
  op: 'event.append',
  event: event(type, fields),
});

export const membersEvent: MembersEvent = (room, added, removed) => event('room.members.updated', { room_id: room.id, added, removed });

export function spec(id: string, extra: Partial<RoomSpec> = {}): RoomSpec {
  return { id, name: `Room ${id}`, members: ['a1'], visibility: 'public', write_policy: 'members', ...extra };
}

export const createRoom = (id: string, extra: Partial<RoomSpec> = {}): WriteOp => ({
  op: 'room.create',
  room: spec(id, extra),
  at: at(),
  event: (room: RoomRecord) => event('room.created', { room_id: room.id }),
});

export const removeRoom = (id: string): WriteOp => ({
  op: 'room.remove',
  id,
  at: at(),
  event: (r) => event('room.removed', { room_id: r.id }),
});

export const members = (room_id: string, add: string[], remove: string[] = []): WriteOp => ({
  op: 'room.members.change',
  room_id,
  add,
  remove,
  at: at(),
  event: membersEvent,
});

export function agent(id: string, credential_key = `token:${id}`, name?: string): AgentRecord {
  const t = at();
  return { id, ...(name ? { name } : {}), actor_uid: `uid-${id}`, credential_key, created_at: t, updated_at: t };
}

export const claim = (id: string, credential_key = `token:${id}`, name?: string): WriteOp => ({
  op: 'agent.claim',
  agent: agent(id, credential_key, name),
});

export const removeAgent = (id: string): WriteOp => ({
  op: 'agent.remove',
  id,
  at: at(),
  events: { members: membersEvent, removed: (a) => event('agent.removed', { agent_id: a?.id ?? id }) },
});

export function artifact(id: string, target: Target, message_id = `m-${id}`): Artifact {
  return {
    id,
    network_id: NET,
    fqid: `svc://${NET}/artifacts/${id}`,
    message_id,
    target,
    part_index: 0,
    kind: 'url',
    url: `https://example.test/${id}`,
    created_at: at(),
  };
}

export const ids = (items: { id: string }[]): string[] => items.map((i) => i.id);

/** The StoreError code `fn` fails with (fails the test when it does not). */
/** The code of a store refusal: a StoreError's, or `stale` for the Postgres backend's StaleBasis. */
function refusalCode(err: unknown): string | undefined {
  if (err instanceof StoreError) return err.code;
  return (err as { code?: unknown } | undefined)?.code === 'stale' ? 'stale' : undefined;
}

export async function codeOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    const code = refusalCode(err);
    if (code === undefined) throw err;
    return code;
  }
  assert.unreachable('expected a StoreError');
  return '';
}

/** Settles every promise; returns each one's StoreError code, or 'ok'. */
export async function settled(ps: Promise<unknown>[]): Promise<string[]> {
  const rs = await Promise.allSettled(ps);
  return rs.map((r) => (r.status === 'fulfilled' ? 'ok' : (refusalCode(r.reason) ?? String(r.reason))));
}

export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) assert.unreachable(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A reaction.change of `by` on message `message_id` (at most `max` distinct emoji on a message); its event carries the emoji and count. */
export const reactionChange = (message_id: string, emoji: string, by: string, action: 'add' | 'remove', max: number): ReactionChangeOp => ({
  op: 'reaction.change',
  reaction: { message_id, emoji, by },
  action,
  max_distinct: max,
  at: new Date().toISOString(),
  event: (count) => event('reaction.updated', { room_id: `${emoji} ${count}` }),
});

/** A `reaction.updated` event: alpha added 👍 to message `m` of `target`. */
export const reactionAdded = (target: Target): ServiceEvent => ({
  id: 'e1',
  type: 'reaction.updated',
  network_id: NET,
  created_at: 't',
  reaction: {
    message_id: 'm',
    target,
    emoji: '👍',
    action: 'added',
    by: `${NET}:alpha`,
    from: { type: 'agent', id: 'alpha', network_id: NET, fqid: `svc://${NET}/agents/alpha` },
    count: 1,
  },
});

/**
 * Leaves a store as a crash would, never closed: an sqlite store's search worker stops writing its
 * file, as a killed process's threads do (alive, it would go on writing while the next store on the
 * same files reads it), once a write under way has ended. Nothing for other backends.
 */
export async function leftAsCrashed(s: Store): Promise<void> {
  await (s as unknown as { search?: { abandon(): Promise<void> } }).search?.abandon();
}
