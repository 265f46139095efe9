// The soak run's options (flags or SOAK_* environment variables) and small shared helpers.

import { TOKENS } from '../../test/helpers/server.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : Number(process.env[`SOAK_${name.toUpperCase()}`] ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name}: must be a number`);
  return v;
}

/** A flag without a value (`--no-receipts`), or its SOAK_* variable set to 1. */
function flag(name: string): boolean {
  return process.argv.includes(`--${name}`) || process.env[`SOAK_${name.toUpperCase().replaceAll('-', '_')}`] === '1';
}

/** A text option (`--probe DIR`), or its SOAK_* variable. */
function text(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : process.env[`SOAK_${name.toUpperCase()}`];
}

export const MINUTES = arg('minutes', 10);
export const AGENTS = arg('agents', 200);
export const RATE = arg('rate', 60); // messages per second, all senders together
export const READ_RATE = arg('reads', 30); // history reads per second
export const OBSERVERS = arg('observers', 4);
export const ROOMS = 20;
/**
 * `--store postgres`: the server keeps its store in PostgreSQL (SVC_TEST_PG_URL, else a throwaway
 * cluster started as the tests start one: test/helpers/pg.ts) instead of sqlite.
 */
export const STORE = text('store') ?? 'sqlite';
if (STORE !== 'sqlite' && STORE !== 'postgres') throw new Error('--store: sqlite or postgres');
/** `--no-receipts`: the server runs with `server.receipts: false` (to compare what receipts cost). */
export const RECEIPTS = !flag('no-receipts');
/**
 * `--probe DIR`: an online backup of the store (POST /v1/backup) into DIR/warm after warm-up and
 * DIR/end at the end, for `node --import tsx scripts/soak/db-pages.ts DIR/warm/svc.db` to say
 * which tables the memory went to. With `--store postgres` (no DIR) it prints the size of each
 * table and the events by type, after warm-up and at the end.
 */
export const PROBE = text('probe');
/** `--probe` with `--store postgres`: table sizes and events by type, read from the database. */
export const PROBE_PG = STORE === 'postgres' && flag('probe');
// The SSE replay buffer (server.event_buffer, 10000 events) fills in about two minutes at this
// rate; the JS heap is flat from then on.
export const WARMUP_MIN = MINUTES >= 6 ? 3 : Math.max(1, Math.floor(MINUTES / 2));
export const ADMIN = TOKENS.admin.value;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const rand = (n: number) => Math.floor(Math.random() * n);
export const agentId = (i: number) => `ag${i}`;
export const roomsOf = (i: number) => [i % ROOMS, (i + 7) % ROOMS];
