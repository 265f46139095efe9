// Preloaded into `svc serve` by the bench (`--import`, bench/lib/svc.ts `watchStalls`): svc's
// event-loop stalls to the millisecond. prom-client's lag max (svc's /metrics) comes from a 10 ms
// timer and counts that interval in, so a 15 ms stall can read as 25 ms. Here the timer runs every
// millisecond; every 200 ms the longest interval since the last line is appended to the file named
// by SVC_BENCH_STALL_FILE as `<epoch ms> <longest interval, ms>`, and the histogram is reset.

import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
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
