// Writes a network as export lines (format.ts): store copy's reader (store/network-copy.ts) with a
// sink that turns each page into text instead of rows. Lines go out a page at a time through
// `emit`, which may wait (backpressure): the export is never whole in memory.

import { ALL_PARTS } from '../store/concerns.js';
import { copyNetwork, type CopyCounts, type EventsPage, type NetworkRecords, type NetworkSource } from '../store/network-copy.js';
import type { PartEffect } from '../store/concerns.js';
import type { AgentRecord } from '../store/types.js';
import { EXPORT_FORMAT, HEADER_TYPE, PUBLIC_KV_KINDS, SEQUENCE_TYPE, WITHHELD_CREDENTIAL, line, type ExportHeader } from './format.js';

export interface ExportOptions {
  network_id: string;
  network_uid?: string;
  svc_version: string;
  /** When the snapshot was taken. */
  exported_at: string;
  with_secrets: boolean;
  /** The configured pairings, whose relay cursors are exported. */
  pairingIds: string[];
}

/** About how many characters of lines go out at a time. */
const CHUNK = 128 * 1024;

/** Hands on a chunk of whole lines (each ending in a newline); resolves when more may come. */
export type Emit = (chunk: string) => void | Promise<void>;

/** A credential key that is no secret: a static token's id, or anonymous. The others are token hashes. */
const publicCredential = (key: string): boolean => key.startsWith('token:') || key === 'anonymous';

function agentOf(a: AgentRecord, secrets: boolean): AgentRecord {
  return secrets || publicCredential(a.credential_key) ? a : { ...a, credential_key: WITHHELD_CREDENTIAL };
}

function partName(e: PartEffect): string {
  const p = ALL_PARTS.find((x) => x.owns(e));
  if (!p) throw new Error(`no store part owns the effect ${e.op}`);
  return p.name;
}

/** Writes the whole export of `source` through `emit`; returns what the copy reader counted. */
export async function exportNetwork(source: NetworkSource, o: ExportOptions, emit: Emit): Promise<CopyCounts> {
  const counts: Record<string, number> = {};
  let out: string[] = [];
  let size = 0;
  const add = (type: string, fields: Record<string, unknown>) => {
    counts[type] = (counts[type] ?? 0) + 1;
    const l = line(type, fields);
    out.push(l);
    size += l.length;
  };
  const flush = async () => {
    if (out.length === 0) return;
    const chunk = `${out.join('\n')}\n`;
    out = [];
    size = 0;
    await emit(chunk);
  };
  /** A chunk goes once it is this big: a page of large messages is not one string of megabytes. */
  const flushFull = async () => {
    if (size >= CHUNK) await flush();
  };
  let headed = false;
  const header = (messages: number) => {
    if (headed) return;
    headed = true;
    const { pairingIds: _, ...meta } = o;
    const h: Omit<ExportHeader, 'type'> = { ...meta, format: EXPORT_FORMAT, messages };
    out.push(line(HEADER_TYPE, h as unknown as Record<string, unknown>));
  };
  const result = await copyNetwork(
    source,
    {
      async events(page: EventsPage) {
        const versions = new Map<string, unknown[]>();
        for (const v of page.versions) {
          const list = versions.get(v.message_id) ?? [];
          list.push(v.version);
          versions.set(v.message_id, list);
        }
        const messages = new Map(page.messages.map((m) => [m.record.message.id, m.record]));
        for (const e of page.events) {
          // A message goes just before the event that created it: an import meets it first.
          const id = e.event.type === 'message.created' ? (e.message_id ?? e.event.message?.id) : undefined;
          const rec = id === undefined ? undefined : messages.get(id);
          if (rec) {
            add('message', { ...rec, versions: versions.get(rec.message.id) ?? [] });
            messages.delete(rec.message.id);
          }
          add('event', { seq: e.seq, event: e.event, ...(e.message_id ? { message_id: e.message_id } : {}) });
          await flushFull();
        }
        for (const rec of messages.values()) add('message', { ...rec, versions: versions.get(rec.message.id) ?? [] });
        for (const effect of page.parts) add(partName(effect), { effect });
        await flush();
      },
      async records(r: NetworkRecords) {
        add(SEQUENCE_TYPE, { last_seq: r.last_seq });
        for (const room of r.rooms) add('room', { room });
        for (const agent of r.agents) add('agent', { agent: agentOf(agent, o.with_secrets) });
        for (const thread of r.threads) add('thread', { thread });
        for (const dm of r.dms) add('dm', { dm });
        for (const artifact of r.artifacts) add('artifact', { artifact });
        for (const p of r.pairings) add('pairing', p);
        for (const x of r.readStates) add('read_state', x);
        // OAuth clients, grants and tokens are secrets; the network's uid is not.
        for (const entry of r.kv ?? []) if (o.with_secrets || PUBLIC_KV_KINDS.includes(entry.kind)) add('kv', { entry });
        for (const effect of r.parts) add(partName(effect), { effect });
        await flush();
      },
    },
    { pairingIds: o.pairingIds, onProgress: (_done, total) => header(total) },
  );
  out.push(line('end', { counts }));
  await flush();
  return result;
}
