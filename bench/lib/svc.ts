// Starts `svc serve` (the built dist, sqlite store, bearer auth) in a folder of the benchmark's.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { launch, stop, tail, waitForLine, rssMb, withFdLimit } from './procs.js';
import { nowMs } from './stats.js';
import { postBytes } from './http.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The built `svc` (dist/); SVC_BENCH_BIN names another script (the smoke test passes the one the tests run, so it needs no build). */
export const SVC_BIN = process.env.SVC_BENCH_BIN || path.join(ROOT, 'bin/svc.js');

export const NETWORK = 'bench';
/** One static token with every scope a benchmark client needs (no agents allowlist). */
export const TOKEN = 'bench-token-0123456789abcdef';
export const PUBLISHER = 'pub';
/** The word the search scenario looks for; bench/loader.ts puts it in about 1% of the messages. */
export const SEARCH_WORD = 'zanzibar';

/** Node flags every svc serve gets unless its options name others (`npm run bench -- --profile`: --cpu-prof; run.ts). */
export const defaultNodeArgs: string[] = [];

export interface SvcOptions {
  dir: string;
  rooms: { id: string; members: string[] }[];
  /** Extra node flags for the server (e.g. --cpu-prof). */
  nodeArgs?: string[];
  checkpointBytes?: number;
  /** Another build's `bin/svc.js` (A/B comparisons of two trees); default this tree's. */
  bin?: string;
  /** server.event_buffer (the SSE replay buffer); default the config default. */
  eventBuffer?: number;
  /** A Postgres store instead of sqlite (several instances may share the schema). */
  postgres?: { url: string; schema: string };
  /** server.receipts: false runs without receipts (the receipts rows compare the two). */
  receipts?: boolean;
  /** Raise the open-files limit to the hard limit (thousands of attachments). */
  manyFds?: boolean;
  /**
   * Watch svc's event-loop stalls to the millisecond (bench/lib/loop-stall.mjs); read them with
   * `stallMaxMs`. 'detail' also records each stall over 20 ms with the collections it held
   * (`stallDetail()`; a 1 ms timer in svc, so not in the bench's own rows).
   */
  watchStalls?: boolean | 'detail';
  /** server.retention (the retention row). */
  retention?: { max_age?: string; max_messages?: number };
  /** Extra environment for the server (test knobs such as SVC_RETENTION_INTERVAL_MS). */
  env?: Record<string, string>;
  /** How much of the server's output `output()` keeps (its last characters); default 8,000. */
  outputChars?: number;
}

export interface SvcServer {
  port: number;
  pid: number | undefined;
  /** Milliseconds from spawn to the listening line. */
  startupMs: number;
  output(): string;
  stop(): Promise<void>;
  /**
   * svc's longest event-loop stall (ms, within a millisecond) between two `Date.now()` readings;
   * null unless started with `watchStalls` or when nothing was recorded.
   */
  stallMaxMs(from: number, to: number): Promise<number | null>;
  /** Each recorded stall line (`at`: its epoch ms, `ms`: the longest stall of the 200 ms before it); empty unless watched. */
  stalls(): Stall[];
  /**
   * With `watchStalls: 'detail'`: each stall over 20 ms (`at`: its start, epoch ms; `monoUs`: on the
   * monotonic clock of a --cpu-prof profile), the collections in it, and the main thread's time in it
   * on a CPU and waiting for one.
   */
  stallDetail(): { at: number; ms: number; gcs: string; monoUs: number; cpuMs: number; waitMs: number }[];
}

export interface Stall {
  at: number;
  ms: number;
}

const STALL_WATCH = path.join(ROOT, 'bench/lib/loop-stall.mjs');
/** How often loop-stall.mjs writes a line (ms): a line covers the interval before its time. */
const STALL_LINE_MS = 200;
/** The detail file of `watchStalls: 'detail'`, in the server's folder. */
const STALL_DETAIL = 'stall-detail.log';

/** The lines loop-stall.mjs wrote to `file`. */
function stallLines(file: string): Stall[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.split(' ').map(Number))
    .filter(([at, ms]) => Number.isFinite(at) && Number.isFinite(ms))
    .map(([at, ms]) => ({ at: at!, ms: ms! }));
}

/** The longest stall of the lines whose interval overlaps [from, to]. */
function stallMax(lines: Stall[], from: number, to: number): number | null {
  let max: number | null = null;
  for (const { at, ms } of lines) if (at > from && at < to + STALL_LINE_MS) max = Math.max(max ?? 0, ms);
  return max;
}

/** The benchmark's svc.yaml: bearer auth, sqlite (durable), no rate limits. */
export function svcConfig(o: SvcOptions): Record<string, unknown> {
  return {
    network: { id: NETWORK, name: 'Bench' },
    server: {
      listen_addr: '127.0.0.1:0',
      human_ingress: true,
      direct_messages: true,
      heartbeat_interval_ms: 30000,
      // Every subscriber connects from 127.0.0.1.
      limits: { sse_streams_per_address: 0 },
      ...(o.eventBuffer !== undefined ? { event_buffer: o.eventBuffer } : {}),
      ...(o.receipts === false ? { receipts: false } : {}),
      ...(o.retention ? { retention: o.retention } : {}),
    },
    store: o.postgres
      ? { backend: 'postgres', url_env: 'SVC_BENCH_DATABASE_URL', schema: o.postgres.schema }
      : { backend: 'sqlite', path: 'svc.db', ...(o.checkpointBytes ? { checkpoint_bytes: o.checkpointBytes } : {}) },
    auth: {
      mode: 'bearer',
      public_read: false,
      agent_registration: 'token',
      tokens: [{ id: 'bench', value: TOKEN, scopes: ['observe', 'write', 'admin', 'attach'] }],
    },
    rooms: o.rooms.map((r) => ({ id: r.id, members: r.members })),
    pairings: [],
  };
}

/** Spawns svc serve on 127.0.0.1:0 and waits for its listening line. */
export async function startSvc(o: SvcOptions): Promise<SvcServer> {
  const file = path.join(o.dir, 'svc.yaml');
  writeFileSync(file, stringify(svcConfig(o)), { mode: 0o600 });
  const t0 = nowMs();
  const stallFile = path.join(o.dir, 'stalls.log');
  const watch = o.watchStalls ? ['--import', pathToFileURL(STALL_WATCH).href] : [];
  const argv = [...watch, ...(o.nodeArgs ?? defaultNodeArgs), o.bin ?? SVC_BIN, 'serve', '--config', file];
  const [cmd, args] = o.manyFds ? withFdLimit(process.execPath, argv) : [process.execPath, argv];
  const child = launch(cmd, args, {
    cwd: o.dir,
    env: {
      ...process.env,
      NO_COLOR: '1',
      ...(o.postgres ? { SVC_BENCH_DATABASE_URL: o.postgres.url } : {}),
      ...(o.watchStalls ? { SVC_BENCH_STALL_FILE: stallFile } : {}),
      ...(o.watchStalls === 'detail' ? { SVC_BENCH_STALL_DETAIL: path.join(o.dir, STALL_DETAIL) } : {}),
      ...o.env,
    },
  });
  const out = tail(child, o.outputChars);
  const m = await waitForLine(child, /svc listening on http:\/\/[^\s]+:(\d+)/, 120_000, 'svc serve');
  return {
    port: Number(m[1]),
    pid: child.pid,
    startupMs: nowMs() - t0,
    output: out,
    stop: () => stop(child, 60_000),
    stallMaxMs: async (from, to) => {
      if (!o.watchStalls) return null;
      await new Promise((r) => setTimeout(r, Math.max(0, to + STALL_LINE_MS + 50 - Date.now()))); // the line covering `to`
      return stallMax(stallLines(stallFile), from, to);
    },
    stalls: () => stallLines(stallFile),
    stallDetail: () => {
      const file = path.join(o.dir, STALL_DETAIL);
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [at, ms, gcs, mono, cpu, wait] = l.split(' ');
          return { at: Number(at), ms: Number(ms), gcs: gcs ?? '-', monoUs: Number(mono), cpuMs: Number(cpu), waitMs: Number(wait) };
        });
    },
  };
}

/** The text of every ingest message (scenario 1 and 5). */
export const INGEST_TEXT = 'ingest: a room message of ordinary length, about as long as a sentence';

/** The HTTP request of one ingest message: into the room `ingest`, as the publisher, with the bench token. */
export function svcIngestRequest(): Buffer {
  return postBytes('/v1/messages', sendBody('ingest', INGEST_TEXT), TOKEN);
}

/** A room send body as a string. */
export function sendBody(room: string, text: string): string {
  return JSON.stringify({
    target: { kind: 'room', room_id: room },
    from: { type: 'agent', id: PUBLISHER },
    parts: [{ kind: 'text', text }],
  });
}

export { rssMb };

/** A tool's report of a server started with `watchStalls: 'detail'` and `--trace-gc`: the stalls over 20 ms after `from` (epoch ms) with the collections each held, and the full collections over 10 ms. */
export function pausesOf(svc: SvcServer, from: number): string {
  const stalls = svc
    .stallDetail()
    .filter(({ at }) => at > from)
    .map(
      ({ at, ms, gcs, monoUs, cpuMs, waitMs }) =>
        `${ms} ms at +${at - from} ms (run ${cpuMs}, wait ${waitMs}; gc ${gcs}; --at ${monoUs}+${ms})`,
    );
  const gcs = svc
    .output()
    .split('\n')
    .filter((l) => /Mark-Compact|Mark-sweep/i.test(l))
    .filter((l) => Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(l)?.[1] ?? 0) > 10)
    .map((l) => l.replace(/^\[[^\]]*\]\s*/, '').slice(0, 160));
  return `  stalls over 20 ms: ${stalls.join(', ') || 'none'}\n  full collections over 10 ms: ${gcs.join('\n    ') || 'none'}`;
}
