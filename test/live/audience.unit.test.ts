// Audiences as of each event of a batch (live/visibility.ts asOfEvents): the batch's rooms are read
// once, after all of its events, and the membership changes in the batch give back the members an
// earlier event was sent to.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { asOfEvents, type Audience } from '../../src/live/visibility.js';
import type { Room, ServiceEvent } from '../../src/protocol/types.js';
import type { RoomRecord, StoredEvent } from '../../src/store/types.js';

const test = suite('audiences as of each event');
const NET = 'net1';
let seq = 0;

const record = (id: string, members: string[]): RoomRecord => ({
  id,
  name: id,
  members,
  visibility: 'private',
  write_policy: 'members',
  federation_pairings: [],
  created_at: 't0',
  updated_at: 't0',
});
const view = (id: string, members: string[]): Room => ({
  id,
  network_id: NET,
  fqid: `svc://${NET}/rooms/${id}`,
  name: id,
  members,
  visibility: 'private',
  write_policy: 'members',
  created_at: 't0',
});
const stored = (event: Partial<ServiceEvent> & Pick<ServiceEvent, 'type'>): StoredEvent => ({
  seq: ++seq,
  event: { id: `e${seq}`, network_id: NET, created_at: 't0', ...event },
});
const said = () => stored({ type: 'message.created' });
const changed = (room: string, members: string[], added: string[], removed: string[]) =>
  stored({ type: 'room.members.updated', room: view(room, members), added, removed });
const audience = (room: RoomRecord): Audience => ({
  kind: 'conversation',
  publicKind: false,
  conv: 'room',
  room,
  locals: new Set(room.members),
  rooms: [],
});

/** Every event's audience as the batch read it (the rooms after the whole batch), then corrected. */
function prepared(events: StoredEvent[], rooms: Record<string, RoomRecord>, roomOf: (e: StoredEvent) => string) {
  const audiences = new WeakMap<StoredEvent, Audience>();
  for (const e of events) audiences.set(e, audience(rooms[roomOf(e)]!));
  asOfEvents(NET, events, audiences);
  return (e: StoredEvent) => [...audiences.get(e)!.locals].sort();
}

test('an event between a removal and a return in one batch goes to the members of its moment', () => {
  const before = said();
  const out = changed('r1', ['beta'], [], ['alpha']);
  const whileOut = said();
  const back = changed('r1', ['alpha', 'beta'], ['alpha'], []);
  const after = said();
  const events = [before, out, whileOut, back, after];
  const locals = prepared(events, { r1: record('r1', ['alpha', 'beta']) }, () => 'r1');
  assert.equal(locals(before), ['alpha', 'beta']);
  assert.equal(locals(out), ['beta']);
  assert.equal(locals(whileOut), ['beta']);
  assert.equal(locals(back), ['alpha', 'beta']);
  assert.equal(locals(after), ['alpha', 'beta']);
});

test('a room created in the batch has no members before it; rooms without changes keep what was read', () => {
  const created = stored({ type: 'room.created', room: view('r2', ['gamma']) });
  const inR2 = said();
  const inR3 = said();
  const events = [created, inR2, inR3];
  const rooms = { r2: record('r2', ['gamma', 'delta']), r3: record('r3', ['epsilon']) };
  const roomOf = new Map<StoredEvent, string>([
    [created, 'r2'],
    [inR2, 'r2'],
    [inR3, 'r3'],
  ]);
  const locals = prepared(events, rooms, (e) => roomOf.get(e)!);
  assert.equal(locals(created), ['gamma']);
  assert.equal(locals(inR2), ['gamma']);
  assert.equal(locals(inR3), ['epsilon']);
});

test.run();
