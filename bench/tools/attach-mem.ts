// attach_10k's memory per attachment alone, repeated: svc (and optionally another build, or the
// baseline) alternately, `rounds` times, a few broadcasts each. With --heap, each svc reading also
// records V8's heap spaces (bench/tools/heap-probe.mjs), before the storm and after it settled.
//
//   node --import tsx bench/tools/attach-mem.ts [rounds=2] [n=10000] [--ab OTHER/bin/svc.js]
//        [--baseline] [--heap | --gc] [--node-arg FLAG]... [--settle MS] [--no-receipts] [--broadcasts N]
//        [--event-buffer N] [--snapshot FILE]
//
// --node-arg passes a flag to the svc processes (e.g. --max-semi-space-size=16), --ab compares two
// trees under the same machine load. --gc also takes a reading after a forced full collection
// (live memory apart from garbage): a diagnosis, it changes the process it measures. --snapshot
// (with --gc) writes a heap snapshot after the broadcasts' collection: what holds what stays.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopAll } from '../lib/procs.js';
import { FULL, type Sizes } from '../lib/sizes.js';
import { sleep } from '../lib/stats.js';
import { runAttach, type AttachResult, type AttachTweaks } from '../scenarios/attach.js';
import { argv, flag, opt, positional } from '../lib/args.js';

const valued = ['--ab', '--node-arg', '--settle', '--broadcasts', '--event-buffer', '--snapshot'];
const args = positional(valued);
const rounds = Number(args[0] ?? 2);
const n = Number(args[1] ?? 10_000);
const abBin = opt('--ab') ? path.resolve(opt('--ab')!) : undefined;
const nodeArgs = argv.flatMap((a, i) => (argv[i - 1] === '--node-arg' ? [a] : []));
const noReceipts = flag('--no-receipts');
/** server.event_buffer (the SSE replay buffer's events): what the buffer holds after the broadcasts. */
const eventBuffer = opt('--event-buffer') ? Number(opt('--event-buffer')) : undefined;
const snapshot = opt('--snapshot');
const heap = flag('--heap') || flag('--gc') || snapshot !== undefined;
if (flag('--gc') || snapshot !== undefined) process.env.SVC_HEAP_PROBE_GC = '1';
if (snapshot !== undefined) process.env.SVC_HEAP_PROBE_SNAPSHOT = path.resolve(snapshot);
const settleMs = Number(opt('--settle') ?? FULL.attach.settleMs);
const sizes: Sizes = { ...FULL, attach: { ...FULL.attach, n, broadcasts: Number(opt('--broadcasts') ?? 3), settleMs } };
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-attach-mem-'));
const probeFile = path.join(dir, 'heap.jsonl');
const probeScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'heap-probe.mjs');
process.env.SVC_HEAP_PROBE_FILE = probeFile;
const note = (m: string) => process.stderr.write(`note: ${m}\n`);

interface Spaces {
  mem: NodeJS.MemoryUsage;
  spaces: Record<string, { size: number; used: number }>;
}

/** The heap readings the probe wrote for one signal (with --gc, a second one after a full collection). */
async function readProbe(pid: number | undefined): Promise<Spaces[]> {
  if (!pid) return [];
  const before = existsSync(probeFile) ? readFileSync(probeFile, 'utf8').length : 0;
  process.kill(pid, 'SIGUSR2');
  // A snapshot takes seconds; a reading alone, milliseconds.
  for (let i = 0; i < (snapshot ? 1200 : 40); i++) {
    await sleep(50);
    const all = existsSync(probeFile) ? readFileSync(probeFile, 'utf8') : '';
    if (all.length > before)
      return all
        .slice(before)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Spaces);
  }
  return [];
}

const kb = (bytes: number) => bytes / 1024;
function heapLine(a: Spaces, b: Spaces, n: number): string {
  const per = (x: number, y: number) => `${(kb(y - x) / n).toFixed(1)}`;
  const parts = Object.keys(b.spaces)
    .filter((k) => b.spaces[k]!.size > 0 || (a.spaces[k]?.size ?? 0) > 0)
    .map(
      (k) =>
        `${k.replace('_space', '')} ${per(a.spaces[k]?.size ?? 0, b.spaces[k]!.size)}/${per(a.spaces[k]?.used ?? 0, b.spaces[k]!.used)}`,
    );
  return `    KB/attachment committed/used: ${parts.join(', ')}; external ${per(a.mem.external, b.mem.external)}, arrayBuffers ${per(a.mem.arrayBuffers, b.mem.arrayBuffers)}`;
}

const rows: { who: string; r: AttachResult; load: number }[] = [];
async function once(who: string, side: 'svc' | 'baseline', tweaks: AttachTweaks): Promise<void> {
  const readings: Spaces[][] = [];
  const t: AttachTweaks =
    heap && side === 'svc'
      ? {
          ...tweaks,
          svc: { ...tweaks.svc, nodeArgs: [...(tweaks.svc?.nodeArgs ?? []), '--import', probeScript] },
          probe: async (_at, pid) => {
            readings.push(await readProbe(pid));
          },
        }
      : tweaks;
  const load = os.loadavg()[0]!;
  const r = await runAttach(side, dir, sizes, note, t).finally(() =>
    rmSync(path.join(dir, `attach-${side}`), { recursive: true, force: true }),
  );
  rows.push({ who, r, load });
  console.log(
    `${who.padEnd(9)} ${String(r.mem_kb_per_attachment).padStart(6)} KB/att (${r.mem_kb_per_attachment_after_broadcasts} after broadcasts)  rss ${r.rss_before_mb}->${r.rss_after_mb} MB  storm ${r.attach_storm_s} s  p50/p99 ${r.broadcast_p50_ms}/${r.broadcast_p99_ms} ms${r.complete ? '' : ' (incomplete)'}  load ${load.toFixed(1)}`,
  );
  const [before, after] = readings;
  if (before?.[0] && after?.[0]) console.log(heapLine(before[0], after[0], r.attachments));
  // After a full collection at both points: what is live.
  if (before?.[1] && after?.[1]) console.log(`${heapLine(before[1], after[1], r.attachments)} (after a full GC)`);
  const end = readings[2];
  if (before?.[0] && end?.[0]) console.log(`${heapLine(before[0], end[0], r.attachments)} (after the broadcasts)`);
  if (before?.[1] && end?.[1]) console.log(`${heapLine(before[1], end[1], r.attachments)} (after the broadcasts and a full GC)`);
}

try {
  for (let i = 0; i < rounds; i++) {
    await once('svc', 'svc', {
      svc: { nodeArgs, ...(noReceipts ? { receipts: false } : {}), ...(eventBuffer !== undefined ? { eventBuffer } : {}) },
    });
    if (abBin) await once('svc-ab', 'svc', { svc: { nodeArgs, bin: abBin } });
    if (flag('--baseline')) await once('baseline', 'baseline', {});
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  for (const who of new Set(rows.map((r) => r.who))) {
    const mine = rows.filter((r) => r.who === who);
    console.log(
      `median ${who}: ${med(mine.map((r) => r.r.mem_kb_per_attachment ?? NaN))} KB/attachment, storm ${med(mine.map((r) => r.r.attach_storm_s))} s (${mine.length} runs)`,
    );
  }
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
