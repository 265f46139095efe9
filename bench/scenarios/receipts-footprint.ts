// What receipts keep, per 1,000 deliveries (#43 part 8): a paced fan-out to ACKing attached agents
// on a fresh server, with the store's bytes (an online backup's svc.db: every page the store holds)
// and the server's resident memory read before and after it. Run with receipts on and off
// (scenarios/receipts.ts), the difference is what receipts cost in space; it should not follow
// the deliveries (docs/receipts.md "How they are stored").

import { statSync } from 'node:fs';
import path from 'node:path';
import { rssMb } from '../lib/procs.js';
import type { Sizes } from '../lib/sizes.js';
import { TOKEN } from '../lib/svc.js';
import type { Target } from '../lib/targets.js';

export interface FootprintResult {
  /** Deliveries the measured phase made (messages × attached agents that got them). */
  deliveries: number;
  /** Growth of the store's file per 1,000 deliveries, bytes. */
  store_bytes_per_1k: number | null;
  /** Growth of the server's resident memory per 1,000 deliveries, KiB. */
  rss_kib_per_1k: number | null;
}

/** The store's size on disk as an online backup into `dir` writes it (null when it cannot: no sqlite store). */
async function storeBytes(t: Target, dir: string): Promise<number | null> {
  if (!t.port) return null;
  const r = await fetch(`http://127.0.0.1:${t.port}/v1/backup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ dir }),
  });
  if (!r.ok) return null;
  return statSync(path.join(dir, 'svc.db')).size;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Publishes `sizes.fanout.rate` messages/s for `sizes.fanout.seconds` to `sizes.fanout.subscribers` ACKing agents; measures around it. */
export async function runFootprint(t: Target, sizes: Sizes, dir: string, note: (m: string) => void): Promise<FootprintResult | null> {
  const n = sizes.fanout.subscribers;
  const pool = await t.subscribe('svc-attach', n);
  try {
    // Warm-up outside the numbers: connections, JIT, the first receipt rows of each agent.
    await pool.phase('w', false);
    const w = await t.publish(
      { rate: sizes.fanout.rate, seconds: Math.min(1, sizes.fanout.seconds / 2), inflight: 8 },
      (i, at) => `b w ${i} ${at}`,
    );
    await pool.waitFor(w.ok, 10_000);
    await sleep(500);
    const bytes0 = await storeBytes(t, path.join(dir, 'before'));
    const rss0 = rssMb(t.pid);
    await pool.phase('f', false);
    const p = await t.publish({ rate: sizes.fanout.rate, seconds: sizes.fanout.seconds, inflight: 8 }, (i, at) => `b f ${i} ${at}`);
    const r = await pool.waitFor(p.ok, 30_000);
    if (!r.complete) note(`${t.name} footprint: not every agent got all ${p.ok} messages`);
    // The receipts of the last ACKs are written by the next flush (200 ms).
    await sleep(1000);
    const bytes1 = await storeBytes(t, path.join(dir, 'after'));
    const rss1 = rssMb(t.pid);
    const deliveries = r.received.reduce((a, b) => a + b, 0);
    if (deliveries === 0) return null;
    const per1k = (x: number) => Math.round((x * 1000) / deliveries);
    return {
      deliveries,
      store_bytes_per_1k: bytes0 !== null && bytes1 !== null ? per1k(bytes1 - bytes0) : null,
      rss_kib_per_1k: rss0 !== null && rss1 !== null ? per1k((rss1 - rss0) * 1024) : null,
    };
  } finally {
    await pool.close();
  }
}
