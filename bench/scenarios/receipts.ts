// Scenario 3c, the cost of receipts: ingest and unpaced fan-out on svc as it ships (receipts on)
// and on svc with `server.receipts: false`, `reps` times each, alternately (with, without, with,
// ...), each on a fresh server; reported as medians with the with / without ratio per pair. Then
// what each side keeps per 1,000 deliveries: store bytes and resident memory (receipts-footprint.ts).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Results } from '../lib/report.js';
import { combine, ratios } from '../lib/reps.js';
import { type RunContext, SUMMED } from '../lib/run-context.js';
import { startSvc } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';
import { type FanoutResult, type IngestResult, runIngest, runUnpaced } from './live.js';
import { type FootprintResult, runFootprint } from './receipts-footprint.js';

/** Fills `results.receipts`. */
export async function runReceipts(ctx: RunContext, rooms: { id: string; members: string[] }[]): Promise<void> {
  const { results, step, note, noteOn, log, reps, tmp, sizes, onFresh } = ctx;
  let n = 0;
  const start = (receipts: boolean) => () =>
    step(`svc serve start (receipts ${receipts ? 'on' : 'off'})`, async () => {
      const dir = path.join(tmp, `receipts-${receipts ? 'on' : 'off'}-${++n}`);
      mkdirSync(dir);
      return svcTarget(await startSvc({ dir, rooms, receipts }), receipts ? 'svc' : 'svc_no_receipts');
    });
  const sides = { with: start(true), without: start(false) };
  const rc: NonNullable<Results['receipts']> = {
    ingest: { with: null, without: null },
    fanout_max: { with: null, without: null },
    per_1k_deliveries: { with: null, without: null },
  };
  results.receipts = rc;
  const onError = (m: string) => noteOn(rc, m);
  const ingest: { with: (IngestResult | null)[]; without: (IngestResult | null)[] } = { with: [], without: [] };
  const fanout: { with: (FanoutResult['max'] | null)[]; without: (FanoutResult['max'] | null)[] } = { with: [], without: [] };
  const rep = (k: number) => (reps > 1 ? ` (repetition ${k} of ${reps})` : '');
  for (let k = 1; k <= reps; k++) {
    for (const side of ['with', 'without'] as const) {
      log(`receipts ${side === 'with' ? 'on' : 'off'}: ingest${rep(k)}`);
      ingest[side].push(await onFresh(sides[side], 'ingest', (t) => runIngest(t, sizes, note), onError));
      rc.ingest[side] = combine(ingest[side], SUMMED);
    }
    rc.ingest.with_vs_without = ratios(ingest.with, ingest.without, ['rate', 'cpu_us_per_msg', 'p50_ms', 'p99_ms']);
  }
  for (let k = 1; k <= reps; k++) {
    for (const side of ['with', 'without'] as const) {
      log(`receipts ${side === 'with' ? 'on' : 'off'}: fan-out${rep(k)}`);
      // The unpaced phase alone: the paced one has no receipts target and would only lengthen the run.
      fanout[side].push(await onFresh(sides[side], 'fan-out', (t) => runUnpaced(t, 'svc-attach', sizes, note), onError));
      rc.fanout_max[side] = combine(fanout[side], SUMMED);
    }
    rc.fanout_max.with_vs_without = ratios(fanout.with, fanout.without, ['deliveries_per_s', 'cpu_us_per_delivery']);
  }
  const kept: { with: (FootprintResult | null)[]; without: (FootprintResult | null)[] } = { with: [], without: [] };
  for (let k = 1; k <= reps; k++) {
    for (const side of ['with', 'without'] as const) {
      log(`receipts ${side === 'with' ? 'on' : 'off'}: store bytes and memory per 1,000 deliveries${rep(k)}`);
      const dir = path.join(tmp, `receipts-footprint-${side}-${k}`);
      mkdirSync(dir);
      kept[side].push(await onFresh(sides[side], 'footprint', (t) => runFootprint(t, sizes, dir, note), onError));
      rc.per_1k_deliveries[side] = combine(kept[side], SUMMED);
    }
  }
}
