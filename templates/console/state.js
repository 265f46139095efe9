// The console's shared state and element lookup.

import { toast } from './dom.js';

export const PAGE = 50;
export const $ = (id) => document.getElementById(id);

export const state = {
  network: null,
  session: null,
  rooms: new Map(),
  agents: new Map(),
  /** agent id -> connected */
  presence: new Map(),
  dms: new Map(),
  dmsAllowed: false,
  /** threads of the room in view, by id */
  threads: new Map(),
  threadsRoom: null,
  unread: new Map(),
  /** ids of live messages already counted in the sidebar */
  counted: new Set(),
  /** { kind: 'room' | 'thread' | 'dm', id, roomId } */
  current: null,
  /** messages of the conversation in view, oldest first */
  messages: [],
  seen: new Set(),
  nextBefore: undefined,
  hasMore: false,
  loading: false,
  pending: [],
  /** bumps when the conversation changes, so late answers for an old one are dropped */
  epoch: 0,
};

/** Shows an API failure in the toast; resolves to undefined so callers can `.catch(report)`. */
export function report(err) {
  toast(err.message);
  return undefined;
}
