// `svc store copy`: reading a whole network out of any store (through the Store contract) and
// handing it to the target backend's writer (postgres/copy.ts, sqlite/copy.ts). Events come in
// sequence order with the messages they created, so messages land in the order they were first
// stored; events keep their sequence numbers (attachment cursors and Last-Event-ID stay valid) and
// agents their credential keys (agent tokens keep working).

import { ALL_PARTS, type PartEffect } from './concerns.js';
import type { AnyPart } from './part.js';
import type { Artifact, MessageVersion } from '../protocol/types.js';
import {
  StoreError,
  type AgentRecord,
  type EventBody,
  type DmRecord,
  type MessageRecord,
  type PairingState,
  type AgentReadState,
  type RoomRecord,
  type StoredEvent,
  type ThreadRecord,
  type KvEntry,
  type NetworkSource,
} from './types.js';

export type { NetworkSource };

export interface CopyCounts {
  rooms: number;
  agents: number;
  threads: number;
  dms: number;
  messages: number;
  artifacts: number;
  events: number;
  last_seq: number;
  pairings: number;
}

/** An event as every backend stores it: its message by reference when that message is stored as created. */
export interface CopiedEvent {
  seq: number;
  id: string;
  type: string;
  /** The stored message it created; the event then holds `message: null` in its place. */
  message_id: string | null;
  /** The event as stored, and its JSON. */
  event: EventBody;
  body: string;
}

/** One page of events in sequence order, and the messages they created (with their JSON). */
export interface EventsPage {
  messages: { record: MessageRecord; body: string }[];
  events: CopiedEvent[];
  /** The parts' records of this page's messages (part.ts `copy.page`), as effects. */
  parts: PartEffect[];
  /** The earlier versions of this page's edited messages (#40), oldest first per message. */
  versions: { message_id: string; version: MessageVersion }[];
}

/** Everything but the events and messages, written after them. */
export interface NetworkRecords {
  /** Active rooms and every removed one an event names, in creation order. */
  rooms: RoomRecord[];
  agents: AgentRecord[];
  threads: ThreadRecord[];
  dms: DmRecord[];
  artifacts: Artifact[];
  pairings: { pairing_id: string; state: PairingState }[];
  /** MCP read states (#27) of registered agents and room members: sequence numbers are kept, so their cursors hold. */
  readStates: { agent_id: string; state: AgentReadState }[];
  /** The expiring key/value table's unexpired rows (OAuth clients, grants, tokens, keys: #27). */
  kv?: KvEntry[];
  /** The parts' other records (part.ts `copy.rest`), as effects. */
  parts: PartEffect[];
  /** The last event's seq: the target's sequence continues after it. */
  last_seq: number;
}

/** What a target backend does with a network, inside its own transaction. */
export interface NetworkSink {
  events(page: EventsPage): Promise<void>;
  records(r: NetworkRecords): Promise<void>;
}

export interface CopyNetworkOptions {
  /** Pairing ids whose outbox state is copied (the configured pairings). */
  pairingIds: string[];
  onProgress?: (copied: number, total: number) => void;
}

const PAGE = 1000;
const ALL = { limit: 1_000_000_000 };

/** Thrown when the target already holds a network. */
export class TargetNotEmpty extends StoreError {
  constructor(where: string, what: string, instead = `an empty ${where}`) {
    super('conflict', `the target ${where} already holds a network (${what}); copy only into ${instead}`);
  }
}

/** Reads the whole network from `source` into `sink`; returns what was copied. */
export async function copyNetwork(source: NetworkSource, sink: NetworkSink, o: CopyNetworkOptions): Promise<CopyCounts> {
  const total = (await source.stats()).messages;
  const roomIds = new Set<string>();
  let messages = 0;
  let events = 0;
  let last = 0;
  o.onProgress?.(0, total);
  for (;;) {
    const page: StoredEvent[] = await source.eventsAfter(last, PAGE);
    if (page.length === 0) break;
    const out: EventsPage = { messages: [], events: [], parts: [], versions: [] };
    for (const e of page) {
      const ev = e.event;
      if (ev.room_id) roomIds.add(ev.room_id);
      const m = ev.message;
      let byRef = false;
      if (ev.type === 'message.created' && m) {
        const rec = await source.getMessage(m.id);
        if (rec && rec.event_id === ev.id) {
          const body = JSON.stringify(rec.message);
          out.messages.push({ record: rec, body });
          byRef = body === JSON.stringify(m);
          // Only an edited message has earlier versions: the others cost no read.
          if (rec.message.version !== undefined)
            for (const version of await source.messageVersions(m.id)) out.versions.push({ message_id: m.id, version });
          if (rec.message.target.kind !== 'dm' && rec.message.target.room_id) roomIds.add(rec.message.target.room_id);
        }
      }
      const event: EventBody = byRef ? { ...ev, message: null } : ev;
      out.events.push({ seq: e.seq, id: ev.id, type: ev.type, message_id: byRef ? m!.id : null, event, body: JSON.stringify(event) });
    }
    const ids = out.messages.map((x) => x.record.message.id);
    for (const [p, reads] of partsOf(source)) if (p.copy?.page) out.parts.push(...(await p.copy.page(reads, ids)));
    await sink.events(out);
    messages += out.messages.length;
    events += out.events.length;
    last = page[page.length - 1]!.seq;
    o.onProgress?.(messages, total);
  }
  if (messages !== total) {
    throw new StoreError(
      'corrupt',
      `the source holds ${total} messages but ${messages} were reached through their events; nothing was copied`,
    );
  }

  // The last seq given, which a purge (#40 part 4) may have taken with its event: the target's
  // sequence continues after it, so a client's cursor never sees a seq given twice.
  last = Math.max(last, await source.lastEventSeq());

  const active = await source.listRooms();
  for (const r of active) roomIds.add(r.id);
  const rooms: RoomRecord[] = [];
  for (const id of roomIds) {
    const r = await source.getRoom(id);
    if (r) rooms.push(r);
  }
  const order = new Map(active.map((r, i) => [r.id, i]));
  rooms.sort((a, b) => a.created_at.localeCompare(b.created_at) || (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));

  const threads: ThreadRecord[] = [];
  for (const r of rooms) threads.push(...(await source.listThreads(r.id, ALL)).items);
  threads.sort((a, b) => a.created_at.localeCompare(b.created_at));

  const dms = await source.listDms();
  const artifacts: Artifact[] = [];
  for (const r of rooms) artifacts.push(...(await source.listArtifacts({ room_id: r.id }, ALL)).items);
  for (const d of dms) artifacts.push(...(await source.listArtifacts({ dm_id: d.id }, ALL)).items);
  artifacts.sort((a, b) => a.created_at.localeCompare(b.created_at));

  const pairings: NetworkRecords['pairings'] = [];
  for (const id of o.pairingIds) {
    const state = await source.getPairingState(id);
    if (state) pairings.push({ pairing_id: id, state });
  }
  const agents = await source.listAgents();
  const readStates: NetworkRecords['readStates'] = [];
  const agentIds = new Set([...agents.map((a) => a.id), ...rooms.flatMap((r) => r.members.filter((m) => !m.includes(':')))]);
  for (const id of [...agentIds].sort()) {
    const state = await source.getAgentReadState(id);
    if (state) readStates.push({ agent_id: id, state });
  }
  const convs = [...rooms.map((r) => `room:${r.id}`), ...threads.map((t) => `thread:${t.id}`), ...dms.map((d) => `dm:${d.id}`)];
  const kv = await source.kv.all();
  const parts: PartEffect[] = [];
  for (const [p, reads] of partsOf(source)) if (p.copy?.rest) parts.push(...(await p.copy.rest(reads, convs)));
  await sink.records({ rooms, agents, threads, dms, artifacts, pairings, readStates, kv, parts, last_seq: last });
  return {
    rooms: rooms.length,
    agents: agents.length,
    threads: threads.length,
    dms: dms.length,
    messages,
    artifacts: artifacts.length,
    events,
    last_seq: last,
    pairings: pairings.length,
  };
}

/** Hands a sink a network read from elsewhere than a store (an export file: src/export/import-lines.ts). */
export type NetworkFill = (sink: NetworkSink) => Promise<CopyCounts>;

/** Fills `sink` from a store (copyNetwork) or a fill of its own. */
export function fillSink(source: NetworkSource | NetworkFill, sink: NetworkSink, o: CopyNetworkOptions): Promise<CopyCounts> {
  return typeof source === 'function' ? source(sink) : copyNetwork(source, sink, o);
}

/** The parts the source store keeps, with their reads (every part it was opened with). */
function partsOf(source: NetworkSource): [AnyPart, unknown][] {
  return ALL_PARTS.flatMap((p): [AnyPart, unknown][] => {
    const reads = source.part(p);
    return reads === undefined ? [] : [[p, reads]];
  });
}
