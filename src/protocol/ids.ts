// Identifiers: local ids, scoped ids (`net:agent`), FQIDs (`svc://net/kind/id`) and generated ids.

import { randomBytes, randomFillSync } from 'node:crypto';

/** Local ids of networks, rooms, agents, threads and DMs (the contract). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Client-chosen message ids (idempotency keys) may be longer and carry `:`. */
export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const isId = (s: string): boolean => ID_PATTERN.test(s);

export type FqidKind = 'agents' | 'rooms' | 'threads' | 'dms' | 'artifacts';

export const fqid = (networkId: string, kind: FqidKind, id: string): string => `svc://${networkId}/${kind}/${id}`;

/** Parses `svc://net/kind/id`; undefined when it is not one. */
export function parseFqid(s: string): { network_id: string; kind: FqidKind; id: string } | undefined {
  const m = /^svc:\/\/([^/]+)\/(agents|rooms|threads|dms|artifacts)\/([^/]+)$/.exec(s);
  if (!m || !isId(m[1]!) || !isId(m[3]!)) return undefined;
  return { network_id: m[1]!, kind: m[2] as FqidKind, id: m[3]! };
}

/** `net:agent` for an id that may already be scoped; bare ids belong to `localNetwork`. */
export function scoped(localNetwork: string, id: string): string {
  return id.includes(':') ? id : `${localNetwork}:${id}`;
}

/** Splits a scoped id; a bare id belongs to `localNetwork`. */
export function splitScoped(localNetwork: string, id: string): { network_id: string; id: string } {
  const i = id.indexOf(':');
  return i < 0 ? { network_id: localNetwork, id } : { network_id: id.slice(0, i), id: id.slice(i + 1) };
}

// Crockford base32 keeps generated ids readable and sortable by time.
const B32 = '0123456789abcdefghjkmnpqrstvwxyz';

// Random bytes are drawn 4 KiB at a time: one getrandom call per ~400 ids instead of one per id
// (a hot path: each message send makes three ids).
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;
/** Where the next 10 random bytes start in POOL (read in place: no view object per id). */
function randomTen(): number {
  if (poolAt + 10 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  poolAt += 10;
  return poolAt - 10;
}

const B32_CODES = Uint8Array.from(B32, (c) => c.charCodeAt(0));
const RANDOM_CHARS = Buffer.alloc(16);
let stampMs = -1;
let stamp = '';

/** The 10-character time part of an id; the last one is kept (ids of one millisecond share it). */
function timePart(ms: number): string {
  if (ms !== stampMs) {
    let t = '';
    let n = ms;
    for (let i = 0; i < 10; i++) {
      t = B32[n % 32] + t;
      n = Math.floor(n / 32);
    }
    stamp = t;
    stampMs = ms;
  }
  return stamp;
}

/** A time-ordered random id: `<prefix>_<10 chars of ms time><16 chars of randomness>`. */
export function newId(prefix: string, now = Date.now()): string {
  const at = randomTen();
  // Character codes into a scratch buffer, then one string: appending char by char would make a
  // new string per character.
  for (let i = 0; i < 16; i++) RANDOM_CHARS[i] = B32_CODES[(POOL[at + (i % 10)]! >> (i < 10 ? 0 : 3)) & 31]!;
  return `${prefix}_${timePart(now)}${RANDOM_CHARS.toString('latin1', 0, 16)}`;
}

/** A high-entropy secret in base64url. */
export const secret = (bytes = 32): string => randomBytes(bytes).toString('base64url');
