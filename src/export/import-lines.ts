// Reads an export file (format.ts) back into a backend's copy writer (store/postgres/copy.ts,
// store/sqlite/copy.ts): each line is checked as it comes, pages of messages and events go to the
// writer as they fill, and the records section is handed over only once the end line has confirmed
// the counts. Every refusal names the line. The writer runs in one transaction (Postgres) or builds
// the file in memory (sqlite), so a refusal half way leaves the target as it was.

import { ALL_PARTS } from '../store/concerns.js';
import type { CopyCounts, EventsPage, NetworkRecords, NetworkSink } from '../store/network-copy.js';
import type { PartEffect } from '../store/concerns.js';
import type { EventBody, MessageRecord } from '../store/types.js';
import { EXPORT_FORMAT, HEADER_TYPE, RECORD_SECTION, SEQUENCE_TYPE, type ExportHeader } from './format.js';
import { FILE_BLOB_TYPE } from './with-files.js';

/** A file the importer refuses: damaged, truncated, of a newer format, of another network. */
export class ExportFileError extends Error {
  constructor(msg: string) {
    super(msg);
    this.name = 'ExportFileError';
  }
}

type Obj = Record<string, unknown>;

const PAGE = 1000;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a line must hold: `field` of each kind, by dotted path from the line. */
const SHAPES: Record<string, [string, 'string' | 'integer' | 'object' | 'array' | 'boolean'][]> = {
  message: [
    ['conv', 'string'],
    ['event_id', 'string'],
    ['message', 'object'],
    ['message.id', 'string'],
    ['versions', 'array'],
  ],
  event: [
    ['seq', 'integer'],
    ['event', 'object'],
    ['event.id', 'string'],
    ['event.type', 'string'],
  ],
  [SEQUENCE_TYPE]: [['last_seq', 'integer']],
  room: [
    ['room', 'object'],
    ['room.id', 'string'],
    ['room.members', 'array'],
  ],
  agent: [
    ['agent', 'object'],
    ['agent.id', 'string'],
    ['agent.credential_key', 'string'],
  ],
  thread: [
    ['thread', 'object'],
    ['thread.id', 'string'],
    ['thread.room_id', 'string'],
  ],
  dm: [
    ['dm', 'object'],
    ['dm.id', 'string'],
    ['dm.participant_ids', 'array'],
  ],
  artifact: [
    ['artifact', 'object'],
    ['artifact.id', 'string'],
  ],
  pairing: [
    ['pairing_id', 'string'],
    ['state', 'object'],
    ['state.seq', 'integer'],
  ],
  read_state: [
    ['agent_id', 'string'],
    ['state', 'object'],
  ],
  kv: [
    ['entry', 'object'],
    ['entry.kind', 'string'],
    ['entry.id', 'string'],
    ['entry.value', 'string'],
  ],
  end: [['counts', 'object']],
  [FILE_BLOB_TYPE]: [
    ['sha256', 'string'],
    ['n', 'integer'],
    ['data', 'string'],
  ],
};

function check(n: number, type: string, o: Obj): void {
  for (const [path, want] of SHAPES[type] ?? []) {
    let v: unknown = o;
    for (const k of path.split('.')) v = isObj(v) ? v[k] : undefined;
    const ok =
      want === 'integer'
        ? Number.isSafeInteger(v) && (v as number) >= 0
        : want === 'object'
          ? isObj(v)
          : want === 'array'
            ? Array.isArray(v)
            : typeof v === want;
    if (!ok) throw new ExportFileError(`line ${n}: a ${type} line needs ${path} (${want}); the file is damaged`);
  }
}

/** What the header must say for the file to be read into network `networkId`. */
function readHeader(text: string | undefined, networkId: string): ExportHeader {
  if (text === undefined) throw new ExportFileError('the file is empty: an export starts with its header line');
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    h = undefined;
  }
  if (!isObj(h) || h.type !== HEADER_TYPE)
    throw new ExportFileError(`line 1: not an svc export (its first line is not a {"type":"${HEADER_TYPE}"} header)`);
  if (!Number.isSafeInteger(h.format) || (h.format as number) < 1)
    throw new ExportFileError('line 1: the header has no valid format number; the file is damaged');
  if ((h.format as number) > EXPORT_FORMAT)
    throw new ExportFileError(
      `line 1: the file is in export format ${h.format} (written by svc ${String(h.svc_version)}); this svc reads format ${EXPORT_FORMAT} and older: import it with a newer svc`,
    );
  if (typeof h.network_id !== 'string') throw new ExportFileError('line 1: the header names no network_id; the file is damaged');
  if (h.network_id !== networkId)
    throw new ExportFileError(
      `line 1: the file holds network ${JSON.stringify(h.network_id)}, the config is of network ${JSON.stringify(networkId)}: import into a config whose network.id is ${h.network_id}`,
    );
  return h as unknown as ExportHeader;
}

export type ImportProgress = (messages: number, total: number) => void;

/** A piece of a file's bytes (`file_blob` line, with-files.ts), in order: `n` from 0 for each blob. */
export interface BlobPiece {
  sha256: string;
  n: number;
  data: Buffer;
}

/**
 * The fill (store/network-copy.ts NetworkFill) that reads `lines` into a writer's sink. `networkId`
 * is the target config's: a file of another network is refused.
 */
export function importFill(
  lines: AsyncIterable<string>,
  networkId: string,
  progress?: ImportProgress,
  /**
   * Takes the files' bytes (`svc export --with-files`); without it they are read and dropped.
   * `end` runs once every line is read, before the records are written: a refusal there (bytes
   * that do not match their hash) still leaves the target as it was.
   */
  blobs?: { piece(p: BlobPiece, line: number): Promise<void>; end(): Promise<void> },
) {
  return async (sink: NetworkSink): Promise<CopyCounts> => {
    const it = lines[Symbol.asyncIterator]();
    const first = await it.next();
    const header = readHeader(first.done ? undefined : first.value, networkId);
    const seen: Record<string, number> = {};
    let page: EventsPage = { messages: [], events: [], parts: [], versions: [] };
    const rec: NetworkRecords = {
      rooms: [],
      agents: [],
      threads: [],
      dms: [],
      artifacts: [],
      pairings: [],
      readStates: [],
      kv: [],
      parts: [],
      last_seq: 0,
    };
    const messageIds = new Set<string>();
    let inRecords = false;
    let lastSeq = 0;
    let messages = 0;
    let events = 0;
    let ended = false;
    let n = 1;
    const flush = async () => {
      if (page.messages.length + page.events.length + page.parts.length === 0) return;
      await sink.events(page);
      page = { messages: [], events: [], parts: [], versions: [] };
      progress?.(messages, header.messages);
    };
    progress?.(0, header.messages);
    for (;;) {
      const next = await it.next();
      if (next.done) break;
      n++;
      if (ended) throw new ExportFileError(`line ${n}: a line after the end line; the file is damaged`);
      let o: unknown;
      try {
        o = JSON.parse(next.value);
      } catch (err) {
        throw new ExportFileError(`line ${n}: not JSON (${(err as Error).message}); the file is damaged`);
      }
      if (!isObj(o) || typeof o.type !== 'string') throw new ExportFileError(`line ${n}: a line without a "type"; the file is damaged`);
      const type = o.type;
      check(n, type, o);
      const part = ALL_PARTS.find((p) => p.name === type);
      if (type === 'end') {
        ended = true;
        const want = o.counts as Obj;
        for (const k of new Set([...Object.keys(want), ...Object.keys(seen)]))
          if ((want[k] ?? 0) !== (seen[k] ?? 0))
            throw new ExportFileError(
              `line ${n}: the end line counts ${want[k] ?? 0} ${k} lines, the file holds ${seen[k] ?? 0}; the file is damaged`,
            );
        continue;
      }
      seen[type] = (seen[type] ?? 0) + 1;
      if (part) {
        if (!isObj(o.effect) || !part.owns(o.effect as PartEffect))
          throw new ExportFileError(`line ${n}: a ${type} line whose effect is not one of that part's; the file is damaged`);
        (inRecords ? rec.parts : page.parts).push(o.effect as PartEffect);
        continue;
      }
      if (type === 'message' || type === 'event') {
        if (inRecords) throw new ExportFileError(`line ${n}: a ${type} line after the sequence line; the file is damaged`);
        if (page.parts.length > 0 || page.events.length >= PAGE) await flush();
        if (type === 'message') {
          const { type: _, versions, ...record } = o as Obj & { versions: Obj[] };
          const r = record as unknown as MessageRecord;
          messageIds.add(r.message.id);
          page.messages.push({ record: r, body: JSON.stringify(r.message) });
          for (const v of versions) page.versions.push({ message_id: r.message.id, version: v as never });
          messages++;
        } else {
          const seq = o.seq as number;
          if (seq <= lastSeq) throw new ExportFileError(`line ${n}: event seq ${seq} does not follow ${lastSeq}; the file is damaged`);
          lastSeq = seq;
          const event = o.event as EventBody;
          const mid = typeof o.message_id === 'string' ? o.message_id : null;
          if (mid !== null && !messageIds.has(mid))
            throw new ExportFileError(`line ${n}: the event names message ${mid}, which no earlier line holds; the file is damaged`);
          page.events.push({ seq, id: event.id, type: event.type, message_id: mid, event, body: JSON.stringify(event) });
          events++;
        }
        continue;
      }
      if (type === FILE_BLOB_TYPE) {
        if (!inRecords) throw new ExportFileError(`line ${n}: a ${type} line before the sequence line; the file is damaged`);
        await blobs?.piece({ sha256: o.sha256 as string, n: o.n as number, data: Buffer.from(o.data as string, 'base64') }, n);
        continue;
      }
      if (type === SEQUENCE_TYPE) {
        if (inRecords) throw new ExportFileError(`line ${n}: a second sequence line; the file is damaged`);
        await flush();
        inRecords = true;
        rec.last_seq = o.last_seq as number;
        continue;
      }
      if (!(RECORD_SECTION as readonly string[]).includes(type))
        throw new ExportFileError(`line ${n}: unknown line type ${JSON.stringify(type)}`);
      if (!inRecords) throw new ExportFileError(`line ${n}: a ${type} line before the sequence line; the file is damaged`);
      if (type === 'room') rec.rooms.push(o.room as never);
      else if (type === 'agent') rec.agents.push(o.agent as never);
      else if (type === 'thread') rec.threads.push(o.thread as never);
      else if (type === 'dm') rec.dms.push(o.dm as never);
      else if (type === 'artifact') rec.artifacts.push(o.artifact as never);
      else if (type === 'pairing') rec.pairings.push({ pairing_id: o.pairing_id as string, state: o.state as never });
      else if (type === 'read_state') rec.readStates.push({ agent_id: o.agent_id as string, state: o.state as never });
      else rec.kv!.push(o.entry as never);
    }
    if (!ended) throw new ExportFileError(`the file ends at line ${n} without its end line: it is truncated`);
    if (!inRecords) throw new ExportFileError(`line ${n}: the file has no sequence line; the file is damaged`);
    await blobs?.end();
    await sink.records(rec);
    progress?.(messages, header.messages);
    return {
      rooms: rec.rooms.length,
      agents: rec.agents.length,
      threads: rec.threads.length,
      dms: rec.dms.length,
      messages,
      artifacts: rec.artifacts.length,
      events,
      last_seq: Math.max(rec.last_seq, lastSeq),
      pairings: rec.pairings.length,
    };
  };
}
