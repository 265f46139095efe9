// The export format (#40 part 5; docs/export.md): JSON Lines, one record a line, versioned by the
// header. What the lines hold is what `svc store copy` carries (store/network-copy.ts): the export
// is that reader's output written as text, and an import hands the lines back to a backend's copy
// writer, so the format cannot say more or less than a store keeps.
//
// Every line is written by `line()`: `type` first, then every key of every object in code-point
// order. A record's key order depends on the backend that read it (a Postgres row, a sqlite row, a
// memory object), so without a canonical order an export, import and export again would differ.

/** The format this svc writes, and the newest it reads. */
export const EXPORT_FORMAT = 1;
/** The header's `type`: what a file starts with. */
export const HEADER_TYPE = 'svc-export';

export interface ExportHeader {
  type: typeof HEADER_TYPE;
  format: number;
  network_id: string;
  network_uid?: string;
  svc_version: string;
  /** When the snapshot was taken (the only field that differs between two exports of one state). */
  exported_at: string;
  with_secrets: boolean;
  /** Messages in the file (for a progress bar; the end line's counts are the check). */
  messages: number;
}

/** The last line: what each type of line counted (the header and this line aside). */
export interface ExportEnd {
  type: 'end';
  counts: Record<string, number>;
}

/**
 * The credential key an agent is exported with when secrets are not: it matches no credential, so
 * the agent keeps its id, rooms and history and nobody can act as it until it is given a new token.
 */
export const WITHHELD_CREDENTIAL = 'withheld';

/**
 * The key/value rows (store/kv) that hold no secret: the network's uid (network/uid.ts) and the
 * remote network ids pairing checks learned (pairing/manager.ts). The others are OAuth state.
 */
export const PUBLIC_KV_KINDS: readonly string[] = ['network', 'pairing.remote'];

/** Line types of the events section (after the header, before `sequence`). */
export const EVENT_SECTION = ['message', 'event'] as const;
/** Line types of the records section (after `sequence`, before `end`). */
export const RECORD_SECTION = ['room', 'agent', 'thread', 'dm', 'artifact', 'pairing', 'read_state', 'kv'] as const;
/** The line that closes the events section with the last sequence number given. */
export const SEQUENCE_TYPE = 'sequence';

/** A value with every object's keys in code-point order. */
export function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) out[k] = sortedKeys(x);
  }
  return out;
}

/** One line of the file (without its newline): `type` first, the rest in canonical order. */
export function line(type: string, fields: Record<string, unknown>): string {
  const rest = JSON.stringify(sortedKeys(fields));
  return rest === '{}' ? `{"type":${JSON.stringify(type)}}` : `{"type":${JSON.stringify(type)},${rest.slice(1)}`;
}
