// Preloaded into `svc serve` by the bench (`--import`, bench/lib/svc.ts `watchStalls`): svc's
// event-loop stalls to the millisecond. prom-client's lag max (svc's /metrics) comes from a 10 ms
// timer and counts that interval in, so a 15 ms stall can read as 25 ms. Here the timer runs every
// millisecond; every 200 ms the longest interval since the last line is appended to the file named
// by SVC_BENCH_STALL_FILE as `<epoch ms> <longest interval, ms>`, and the histogram is reset.
//
// With SVC_BENCH_STALL_DETAIL naming a file too, each gap over 20 ms between two runs of a 1 ms
// timer is appended to it as `<epoch ms at its start> <ms> <kind:ms,...> <monotonic µs at its start>
// <ms on a CPU> <ms waiting for one>`: the garbage collections (performance entries of type gc) that
// overlapped it, its start on the clock of a --cpu-prof profile (bench/tools/long-turns.ts --at),
// and how the main thread spent it (Linux's schedstat; 0 0 elsewhere): running, or runnable while
// other threads had the cores.

import { appendFileSync, openSync, readSync } from 'node:fs';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.SVC_BENCH_STALL_FILE;
if (isMainThread && file) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  setInterval(() => {
    appendFileSync(file, `${Date.now()} ${(h.max / 1e6).toFixed(2)}\n`);
    h.reset();
  }, 200).unref();
}

const detail = process.env.SVC_BENCH_STALL_DETAIL;
if (isMainThread && detail) {
  const KINDS = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weak', 16: 'cleanup' };
  /** Recent collections: [start, duration, kind] on performance.now()'s clock. */
  const gcs = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, e.duration, KINDS[e.detail?.kind] ?? String(e.detail?.kind)]);
    while (gcs.length > 200) gcs.shift();
  }).observe({ entryTypes: ['gc'] });
  // The main thread's time on a CPU and waiting for one (ns, Linux's schedstat), read through one
  // descriptor: how much of a stall the thread spent runnable but not running.
  let sched = -1;
  try {
    sched = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    // not Linux: the split reads 0 0
  }
  const buf = Buffer.alloc(128);
  const schedNs = () => {
    if (sched < 0) return [0, 0];
    const n = readSync(sched, buf, 0, buf.length, 0);
    const [run, wait] = buf.toString('latin1', 0, n).split(' ');
    return [Number(run), Number(wait)];
  };
  let last = performance.now();
  let [run0, wait0] = schedNs();
  setInterval(() => {
    const now = performance.now();
    const [run, wait] = schedNs();
    if (now - last > 20) {
      const held = gcs.filter(([s, d]) => s + d > last && s < now).map(([, d, k]) => `${k}:${d.toFixed(1)}`);
      const at = Date.now() - (now - last);
      const mono = Number(process.hrtime.bigint() / 1000n) - Math.round((now - last) * 1000);
      const ms = (ns) => (ns / 1e6).toFixed(1);
      appendFileSync(
        detail,
        `${Math.round(at)} ${(now - last).toFixed(1)} ${held.join(',') || '-'} ${mono} ${ms(run - run0)} ${ms(wait - wait0)}\n`,
      );
    }
    last = now;
    run0 = run;
    wait0 = wait;
  }, 1).unref();
}
