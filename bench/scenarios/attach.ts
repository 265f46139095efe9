// Scenario 6, attach_10k: N WebSocket attachments on one instance, each IDENTIFYed as its own agent
// (all members of one room), held by a few subscriber processes so the client side is not what is
// measured. Reported: the attach storm's time (every connection from first connect to READY),
// resident memory per attachment, and the latency of one room message to all N members, broadcast
// one at a time; the same against the baseline's `ws` server broadcasting to N sockets. After each
// broadcast the run rests as long as the broadcast took (BROADCAST_DUTY), so the broadcasts leave
// the host idle about half the time by construction and the row gets a verdict on any machine: a
// broadcast to 10,000 takes both cores of a 2-core host while it lasts (12.7% idle over back-to-back
// broadcasts on 2026-11-27), and what it measures is one message's latency, not a rate.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startBaseline } from '../lib/baseline-proc.js';
import { PoolGroup, SubscriberPool } from '../lib/pool.js';
import { hardFdLimit, idleMeter, rssMb } from '../lib/procs.js';
import type { Sizes } from '../lib/sizes.js';
import { round, sleep } from '../lib/stats.js';
import { NETWORK, PUBLISHER, startSvc, TOKEN, type SvcOptions } from '../lib/svc.js';
import { baselineTarget, svcTarget, type Target } from '../lib/targets.js';
import { isSaturated } from '../lib/verdict.js';

export interface AttachResult {
  attachments: number;
  /** From the first connection to the last READY (the baseline: the last open), seconds. */
  attach_storm_s: number;
  /** Resident memory the attachments added, per attachment (KB), once the storm settled. */
  mem_kb_per_attachment: number | null;
  /**
   * The same once the broadcasts settled (target: ≤ 1.5× the baseline): what an attachment holds once it has
   * been sent messages and acknowledged them (svc: its receipts ledger), and what delivery left.
   */
  mem_kb_per_attachment_after_broadcasts: number | null;
  /** Publish to delivery of one room message, over every member of every broadcast. */
  broadcast_p50_ms: number | null;
  broadcast_p99_ms: number | null;
  broadcasts: number;
  /** Every member got every broadcast. */
  complete: boolean;
  rss_before_mb: number | null;
  rss_after_mb: number | null;
  /** The host's idle share during the broadcasts (%), and whether it was under 20%. */
  idle_pct: number | null;
  saturated: boolean;
}

/** The share of the broadcast phase spent broadcasting: the rest after each is (1 - duty) / duty of its length. */
export const BROADCAST_DUTY = 0.5;

/** How long to rest after a broadcast that took `activeMs` (from its post to its last delivery seen). */
export function restAfterBroadcast(activeMs: number): number {
  return Math.max(0, activeMs) * ((1 - BROADCAST_DUTY) / BROADCAST_DUTY);
}

/** File descriptors the server needs besides its attachments (store, journal, listeners, publisher). */
const SPARE_FDS = 200;

/** The attachment count this machine allows: `want`, or fewer when the hard open-files limit is lower. */
export function attachable(want: number, note: (m: string) => void): number {
  const hard = hardFdLimit();
  if (hard === null || hard >= want + SPARE_FDS) return want;
  const n = Math.max(1, hard - SPARE_FDS);
  note(`attach_10k: the hard open-files limit is ${hard}, so ${n} attachments instead of ${want}`);
  return n;
}

/** What a tool may change of a run (bench/tools/attach-mem.ts): the svc build and its node flags, a look at the server at both measuring points. */
export interface AttachTweaks {
  svc?: Pick<SvcOptions, 'bin' | 'nodeArgs' | 'receipts' | 'eventBuffer'>;
  /** Called right after each resident-memory reading, with the server's pid. */
  probe?: (at: 'before' | 'after' | 'end', pid: number | undefined) => Promise<void>;
}

/** Runs attach_10k on one side in a fresh folder under `tmp`; the server is stopped afterwards. */
export async function runAttach(
  side: 'svc' | 'baseline',
  tmp: string,
  s: Sizes,
  note: (m: string) => void,
  tweaks: AttachTweaks = {},
): Promise<AttachResult> {
  const n = attachable(s.attach.n, note);
  const dir = path.join(tmp, `attach-${side}`);
  mkdirSync(dir);
  const warmN = s.attach.warm;
  const members = [PUBLISHER, ...Array.from({ length: n + warmN }, (_, k) => `a${k}`)];
  const t: Target =
    side === 'svc'
      ? svcTarget(await startSvc({ dir, rooms: [{ id: 'fanout', members }], manyFds: true, ...tweaks.svc }))
      : baselineTarget(await startBaseline(dir, { manyFds: true }));
  const kind = side === 'svc' ? 'svc-attach' : 'baseline';
  const connect = { kind, port: portOf(t), token: TOKEN, network: NETWORK } as const;
  let group: PoolGroup | undefined;
  try {
    if (warmN > 0) {
      // Agents attached and let go before the storm, so code loaded on first use is not per-attachment memory.
      const warm = await SubscriberPool.start({ ...(side === 'svc' ? connect : { kind, port: portOf(t) }), n: warmN, first: n });
      await warm.close();
    }
    await sleep(500);
    const rssBefore = rssMb(t.pid);
    await tweaks.probe?.('before', t.pid);
    group = await PoolGroup.start({ ...(side === 'svc' ? connect : { kind, port: portOf(t) }), n, wave: s.attach.wave }, s.attach.procs);
    const stormS = group.connectMs / 1000;
    const rssAfter = await settledRss(t.pid, s.attach.settleMs);
    await tweaks.probe?.('after', t.pid);

    await group.phase('k');
    const idle = idleMeter();
    let complete = true;
    for (let i = 0; i < s.attach.broadcasts; i++) {
      const sent = Date.now();
      const p = await t.publish({ rate: 1000, seconds: 30, inflight: 1, max: 1 }, (_j, at) => `b k ${i} ${at}`);
      if (p.ok !== 1) throw new Error(`broadcast ${i} was not accepted: ${p.firstError ?? 'no answer'}`);
      const r = await group.waitFor(i + 1, 30_000);
      for (const e of r.errors.slice(0, 3)) note(`attach_10k ${side}: ${e}`);
      if (!r.complete) {
        complete = false;
        note(`attach_10k ${side}: broadcast ${i} reached ${r.received.filter((x) => x > i).length} of ${n} members`);
        break;
      }
      await sleep(restAfterBroadcast(Date.now() - sent));
    }
    const idlePct = idle();
    const lat = (await group.samples()).summary();
    const rssEnd = await settledRss(t.pid, s.attach.settleMs);
    await tweaks.probe?.('end', t.pid);
    return {
      attachments: n,
      attach_storm_s: round(stormS),
      mem_kb_per_attachment: perAttachment(rssBefore, rssAfter, n),
      mem_kb_per_attachment_after_broadcasts: perAttachment(rssBefore, rssEnd, n),
      broadcast_p50_ms: lat.p50_ms,
      broadcast_p99_ms: lat.p99_ms,
      broadcasts: s.attach.broadcasts,
      complete,
      rss_before_mb: rssBefore === null ? null : round(rssBefore),
      rss_after_mb: rssAfter === null ? null : round(rssAfter),
      idle_pct: idlePct,
      saturated: isSaturated(idlePct) ?? false,
    };
  } finally {
    await group?.close();
    await t.stop();
  }
}

/** The lowest resident memory over `ms` (sampled every 250 ms): what stays once the storm's garbage is collected. */
async function settledRss(pid: number | undefined, ms: number): Promise<number | null> {
  let low: number | null = null;
  for (let waited = 0; waited < ms; waited += 250) {
    await sleep(250);
    const now = rssMb(pid);
    if (now !== null) low = low === null ? now : Math.min(low, now);
  }
  return low;
}

function perAttachment(beforeMb: number | null, afterMb: number | null, n: number): number | null {
  return beforeMb !== null && afterMb !== null ? round(((afterMb - beforeMb) * 1024) / n) : null;
}

function portOf(t: Target): number {
  if (t.port === undefined) throw new Error(`${t.name} has no port`);
  return t.port;
}
