// npm run soak: a long mixed-traffic run against a real `svc serve` (sqlite store, or PostgreSQL
// with `--store postgres`), not part of npm test. Senders post room, thread and DM messages (every fifth message of a room is human, as
// in a staffed network, so the loop guard never has cause to trip); history readers page through
// rooms; SSE observers follow everything; 200 attached agents ACK what they get and drop and
// reconnect at random, resuming from their last processed cursor.
//
// Every minute it prints throughput, error counts, p99 latencies, event delivery lag and the
// server's resident memory. It fails (exit 1) on any error response, any lost or duplicated event,
// or memory that grows after warm-up by more than the data stored since then explains (sql.js
// keeps the database itself in memory; on PostgreSQL the server process keeps none of it).
//
//   npm run soak                       # 10 minutes, 200 agents
//   npm run soak -- --minutes 2 --agents 50 --rate 40
//   npm run soak -- --minutes 4 --no-receipts --probe /tmp/probe   # server.receipts false; store backups to read
//   npm run soak -- --minutes 3 --store postgres --probe           # a throwaway PostgreSQL; table sizes printed

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../test/helpers/server.js';
import { Agent } from './soak/agent.js';
import { Observer } from './soak/observer.js';
import {
  ADMIN,
  AGENTS,
  agentId,
  MINUTES,
  OBSERVERS,
  PROBE,
  PROBE_PG,
  RATE,
  READ_RATE,
  RECEIPTS,
  ROOMS,
  roomsOf,
  sleep,
  STORE,
  WARMUP_MIN,
} from './soak/options.js';
import { type PgStore, pgStore, probePg } from './soak/pg-store.js';
import { audience, type Seen } from './soak/seen.js';
import { closeMinute, cur, errorSamples, median, type Minute, minutes, p99 } from './soak/stats.js';
import { paced, readOne, sendOne } from './soak/traffic.js';

/** The server's own view of its memory, from /metrics: the JS heap, WASM and buffers, and the store's data size. */
async function heapOf(s: TestServer): Promise<{ heap: number; heapTotal: number; external: number; data: number } | undefined> {
  try {
    const text = await (await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    return {
      heap: value('svc_process_nodejs_heap_size_used_bytes'),
      heapTotal: value('svc_process_nodejs_heap_size_total_bytes'),
      external: value('svc_process_nodejs_external_memory_bytes'),
      data: value('svc_store_data_bytes'),
    };
  } catch {
    return undefined;
  }
}

function rssOf(s: TestServer): number {
  const status = readFileSync(`/proc/${s.proc.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

const mib = (b: number) => (b / 1048576).toFixed(1);

/**
 * The times the server holds each byte of the store's data (sqlite): a page written since the open
 * lives in memory (page-hook.ts) and in SQLite's page cache while the database is under its 64 MiB;
 * the search database in its thread the same; and the allocators' slack on top (docs/performance.md,
 * "The soak").
 */
const DATA_COPIES = 3;
/**
 * Store bytes per message sent (sqlite: database pages and the search file), the bound that tells
 * a store growing with deliveries from one growing with messages: 1.6 KiB measured (the message,
 * its event, its search entry, the DMs and wakes it starts); 3.4 KiB when every receipt flush kept
 * an event of its own.
 */
const DATA_PER_MESSAGE = 2560;

/** `--probe DIR`: an online backup of the store into DIR/<name> (its svc.db is checkpointed); on PostgreSQL, its tables' sizes. */
async function probe(s: TestServer, name: string, pgs: PgStore | undefined): Promise<void> {
  if (PROBE_PG && pgs) return probePg(pgs, name).catch((err: unknown) => console.log(`probe: ${String(err)}`));
  if (!PROBE || pgs) return;
  const dir = path.resolve(PROBE, name);
  const r = await fetch(`${s.url}/v1/backup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ dir }),
  });
  console.log(`probe: store backed up into ${dir} (${r.status}${r.ok ? '' : ` ${(await r.text()).slice(0, 200)}`})`);
}

async function main(): Promise<number> {
  const rooms = Array.from({ length: ROOMS }, (_, r) => ({
    id: `room${r}`,
    members: Array.from({ length: AGENTS }, (_, i) => i)
      .filter((i) => roomsOf(i).includes(r))
      .map(agentId),
  }));
  const pgs = STORE === 'postgres' ? await pgStore() : undefined;
  const s = await startServer({
    config: {
      network: { id: 'soak', name: 'Soak' },
      rooms,
      ...(RECEIPTS ? {} : { server: { receipts: false } }),
      ...(pgs ? { store: { backend: 'postgres', url: pgs.url, schema: pgs.schema } } : {}),
    },
  });
  console.log(
    `soak: ${MINUTES} min, ${AGENTS} attached agents, ${OBSERVERS} SSE observers, ${RATE} sends/s, ${READ_RATE} reads/s` +
      `${RECEIPTS ? '' : ', receipts off'}, ${STORE} store; server pid ${s.proc.pid} at ${s.url}`,
  );
  const agents = Array.from({ length: AGENTS }, (_, i) => new Agent(i, s));
  for (const a of agents) a.start();
  while (agents.some((a) => !a.isConnected)) await sleep(100);
  const observers: Observer[] = [];
  for (let i = 0; i < OBSERVERS; i++) {
    const o = new Observer(s, i === 0);
    await o.start();
    observers.push(o);
  }

  const end = Date.now() + MINUTES * 60_000;
  const over = () => Date.now() >= end;
  const report = (m: Minute, secs: number) =>
    console.log(
      `minute ${String(minutes.length).padStart(2)}: ${(m.sends / secs).toFixed(1)} sends/s p99 ${p99(m.sendMs).toFixed(1)} ms, ${(m.reads / secs).toFixed(1)} reads/s p99 ${p99(m.readMs).toFixed(1)} ms, ` +
        `${(m.events / secs).toFixed(0)} attach events/s, delivery lag p99 ${p99(m.lagMs)} ms, ${m.reconnects} reconnects, ${m.errors} errors, ` +
        `rss ${mib(m.rss)} MiB (outside the JS heap ${mib(m.native)}, js heap committed ${mib(m.heapTotal)}, low ${mib(m.heapLow)}, external ${mib(m.external)})`,
    );
  const sampler = setInterval(() => {
    const rss = rssOf(s);
    cur.rssSamples.push(rss);
    void heapOf(s).then((h) => {
      if (!h) return;
      cur.nativeSamples.push(rss - h.heapTotal);
      cur.heapTotal = h.heapTotal;
      cur.heapLow = Math.min(cur.heapLow, h.heap);
      cur.external = h.external;
      cur.data = h.data;
    });
  }, 5_000);
  let minuteStarted = Date.now();
  const ticker = setInterval(() => {
    const m = closeMinute();
    minuteStarted = Date.now();
    report(m, 60);
    if (minutes.length === WARMUP_MIN) void probe(s, 'warm', pgs);
  }, 60_000);

  await Promise.all([paced(RATE, 32, over, () => sendOne(s)), paced(READ_RATE, 16, over, () => readOne(s))]);
  clearInterval(ticker);
  clearInterval(sampler);
  /** The whole minutes (a partial last one holds fewer sends by its length alone). */
  const whole = minutes.length;
  // A last partial minute is reported when it is long enough to say something.
  const tail = (Date.now() - minuteStarted) / 1000;
  if (tail >= 10 && cur.heapLow !== Infinity) {
    report(closeMinute(), tail);
  }

  // Drain: everyone reconnects one last time and catches up.
  const failures: string[] = [];
  const expectedBy = (who: number | 'observer') => {
    const out: number[] = [];
    audience.forEach((aud, g) => {
      if (aud && (who === 'observer' || aud.includes(who))) out.push(g);
    });
    return out;
  };
  const deadline = Date.now() + 60_000;
  const missingOf = (seen: Seen, expected: number[]) => expected.filter((g) => !seen.has(g));
  for (;;) {
    const behind =
      agents.filter((a) => missingOf(a.seen, expectedBy(a.index)).length > 0).length +
      observers.filter((o) => missingOf(o.seen, expectedBy('observer')).length > 0).length;
    if (behind === 0 || Date.now() > deadline) break;
    await sleep(500);
  }
  for (const a of agents) {
    const missing = missingOf(a.seen, expectedBy(a.index));
    if (missing.length > 0) failures.push(`agent ${agentId(a.index)} never got ${missing.length} messages (first g=${missing[0]})`);
    if (a.seen.duplicates > 0) failures.push(`agent ${agentId(a.index)} got ${a.seen.duplicates} messages twice`);
    failures.push(...a.problems.slice(0, 3).map((p) => `agent ${agentId(a.index)}: ${p}`));
  }
  observers.forEach((o, i) => {
    const missing = missingOf(o.seen, expectedBy('observer'));
    if (missing.length > 0) failures.push(`observer ${i} never got ${missing.length} messages`);
    if (o.seen.duplicates > 0) failures.push(`observer ${i} got ${o.seen.duplicates} messages twice`);
  });
  // A server that falls behind the offered rate fails too, errors or not: the senders pace
  // themselves on its answers, so a slow server shows as fewer sends, never as an error.
  const behind = minutes.slice(WARMUP_MIN, whole).filter((m) => m.sends < 0.95 * RATE * 60);
  if (behind.length > 0)
    failures.push(
      `the server fell behind the offered ${RATE} sends/s in ${behind.length} minutes (the slowest: ${(Math.min(...behind.map((m) => m.sends)) / 60).toFixed(1)}/s)`,
    );
  const errors = minutes.reduce((n, m) => n + m.errors, 0);
  if (errors > 0) failures.push(`${errors} error responses or failures, e.g.:\n  ${errorSamples.join('\n  ')}`);

  // Memory after warm-up, window against window (the first minutes after warm-up against the last
  // ones, so one noisy minute decides nothing): the JS heap that survives collections (the lowest
  // in use over a window) must stay flat; the memory outside the JS heap may grow only by what the
  // store's data grew by, held DATA_COPIES times (sql.js keeps the database in memory; on
  // PostgreSQL the process keeps none of it); and that data may grow with messages, not with
  // deliveries. The resident set is reported: it adds the heap V8 keeps committed, which V8 sizes
  // by its own rules and which follows what survives (soak/stats.ts, `native`).
  const since = minutes.slice(WARMUP_MIN - 1);
  const span = Math.min(3, Math.floor(since.length / 2));
  if (span >= 1) {
    const first = since.slice(0, span);
    const final = since.slice(-span);
    const last = final[final.length - 1]!;
    const after = minutes.slice(WARMUP_MIN);
    const sent = after.reduce((n, m) => n + m.sends, 0);
    const stored = after.reduce((n, m) => n + m.storedBytes, 0);
    const receiptEvents = after.reduce((n, m) => n + m.receiptEvents, 0);
    const receiptBytes = after.reduce((n, m) => n + m.receiptBytes, 0);
    /** A figure's median over the first window and over the last. */
    const windows = (f: (m: Minute) => number): [number, number] => [median(first.map(f)), median(final.map(f))];
    const lowest = (w: Minute[]) => Math.min(...w.map((m) => m.heapLow).filter(Number.isFinite));
    const data = STORE === 'sqlite' ? last.data - minutes[WARMUP_MIN - 1]!.data : 0;
    const [dataFrom, dataTo] = windows((m) => m.data);
    const dataBetween = STORE === 'sqlite' ? dataTo - dataFrom : 0;
    const allowance = DATA_COPIES * dataBetween + 48 * 1048576;
    const [nativeFrom, nativeTo] = windows((m) => m.native);
    const [rssFrom, rssTo] = windows((m) => m.rss);
    const [v8From, v8To] = windows((m) => m.heapTotal);
    const heapGrown = lowest(final) - lowest(first);
    const minutesOf = (w: Minute[]) => `${minutes.indexOf(w[0]!) + 1}-${minutes.indexOf(w[w.length - 1]!) + 1}`;
    console.log(
      `memory, minutes ${minutesOf(first)} against ${minutesOf(final)} (medians): outside the JS heap ${mib(nativeFrom)} -> ` +
        `${mib(nativeTo)} MiB (allowance +${mib(allowance)} MiB: ` +
        (STORE === 'sqlite'
          ? `the store's data grew by ${mib(dataBetween)} MiB between them, ${mib(data)} MiB after warm-up, ${(data / Math.max(1, sent)).toFixed(0)} bytes per message sent, for ${sent} messages of ${mib(stored)} MiB; `
          : 'the store keeps none of its data in this process; ') +
        `${receiptEvents} message.receipts events of ${mib(receiptBytes)} MiB sent to an observer, each replacing its conversation's last); ` +
        `js heap surviving collections (lowest) ${mib(lowest(first))} -> ${mib(lowest(final))} MiB; resident ${mib(rssFrom)} -> ` +
        `${mib(rssTo)} MiB, of which V8's committed heap ${mib(v8From)} -> ${mib(v8To)} MiB`,
    );
    if (nativeTo - nativeFrom > allowance)
      failures.push(
        `memory outside the JS heap grew by ${mib(nativeTo - nativeFrom)} MiB after warm-up, more than the ${mib(allowance)} MiB the store's data explains`,
      );
    if (STORE === 'sqlite' && data > DATA_PER_MESSAGE * sent)
      failures.push(`the store grew by ${(data / sent).toFixed(0)} bytes per message sent, more than ${DATA_PER_MESSAGE}`);
    if (heapGrown > 32 * 1048576) failures.push(`the JS heap surviving collections grew by ${mib(heapGrown)} MiB after warm-up`);
  }
  await probe(s, 'end', pgs);
  const total = minutes.reduce((n, m) => n + m.sends, 0);
  console.log(
    `sent ${total} messages, delivered ${agents.reduce((n, a) => n + a.seen.count, 0)} times to agents; reconnects ${minutes.reduce((n, m) => n + m.reconnects, 0)}`,
  );

  // The server's warnings and errors (a background writer failing shows here first), each kind once.
  const warnings = s
    .output()
    .split('\n')
    .filter((l) => /\b(warn|error)\b/.test(l));
  if (warnings.length > 0) {
    const kinds = [...new Set(warnings.map((l) => l.replace(/\d+/g, '#').slice(0, 240)))];
    console.log(`server: ${warnings.length} warning or error lines, e.g.:\n  ${kinds.slice(0, 8).join('\n  ')}`);
  }

  const observerDrops = observers.reduce((n, o) => n + o.reconnects, 0);
  if (observerDrops > 0) console.log(`SSE observers reconnected ${observerDrops} times (resumed with Last-Event-ID)`);
  for (const o of observers) await o.stop();
  await Promise.all(agents.map((a) => a.stop()));
  await s.dispose();
  if (failures.length > 0) {
    console.log(`soak: FAILED\n- ${failures.slice(0, 30).join('\n- ')}`);
    return 1;
  }
  console.log('soak: passed (no error responses, no lost or duplicated events, memory bounded)');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
