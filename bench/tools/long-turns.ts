// The long turns of a .cpuprofile (node --cpu-prof): stretches of samples with no idle or
// program sample between them (the main thread busy without a break) longer than a threshold,
// each with when it came and the functions of ours (URL matching --owners) its time went to.
// Tells what a stall the loop-stall watch saw was made of.
//
//   node --import tsx bench/tools/long-turns.ts FILE.cpuprofile [--over 15] [--owners dist/] [--top 6] [--at US+MS,...]
//
// --at takes stalls as big-ingest.ts --pauses prints them (a start on the profile's monotonic clock
// in µs, and a length in ms) and shows what the main thread ran in each instead.

import { readFileSync } from 'node:fs';
import { opt, positional } from '../lib/args.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const file = positional(['--over', '--owners', '--top', '--at'])[0]!;
const over = Number(opt('--over') ?? 15);
const owners = opt('--owners') ?? 'dist/';
const top = Number(opt('--top') ?? 6);
const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
const windows = (opt('--at') ?? '')
  .split(',')
  .filter(Boolean)
  .map((w) => w.split('+').map(Number) as [number, number]);
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const idle = (n: Node) => ['(idle)', '(program)'].includes(n.callFrame.functionName);

/** The chain of our frames of a sample, innermost first (at most 3). */
function ours(id: number): string {
  const out: string[] = [];
  for (let at: number | undefined = id; at !== undefined && out.length < 3; at = parent.get(at)) {
    const n = byId.get(at)!;
    if (n.callFrame.url.includes(owners)) out.push(label(n));
  }
  return out.length ? out.join(' < ') : label(byId.get(id)!);
}

if (windows.length > 0) {
  for (const [from, ms] of windows) {
    const by = new Map<string, number>();
    let at = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      at += p.timeDeltas[i]!;
      if (at < from || at > from + ms * 1000) continue;
      const k = ours(p.samples[i]!);
      by.set(k, (by.get(k) ?? 0) + p.timeDeltas[i]! / 1000);
    }
    console.log(`\n${ms} ms from ${from} (${((from - p.startTime) / 1e6).toFixed(2)} s into the profile)`);
    for (const [k, t] of [...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${t.toFixed(1).padStart(6)}  ${k}`);
  }
  process.exit(0);
}

let t = 0;
let start = -1;
let acc = new Map<string, number>();
const turns: { at: number; ms: number; by: Map<string, number> }[] = [];
for (let i = 0; i < p.samples.length; i++) {
  const dt = p.timeDeltas[i]! / 1000;
  t += dt;
  const n = byId.get(p.samples[i]!)!;
  if (idle(n)) {
    if (start >= 0 && t - start > over) turns.push({ at: start, ms: t - dt - start, by: acc });
    start = -1;
    acc = new Map();
    continue;
  }
  if (start < 0) start = t - dt;
  const k = ours(p.samples[i]!);
  acc.set(k, (acc.get(k) ?? 0) + dt);
}
console.log(`${turns.length} busy stretches over ${over} ms (profile ${(t / 1000).toFixed(1)} s)`);
for (const turn of turns.sort((a, b) => b.ms - a.ms).slice(0, 20)) {
  console.log(`\n${turn.ms.toFixed(1)} ms at ${(turn.at / 1000).toFixed(2)} s`);
  for (const [k, ms] of [...turn.by.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${ms.toFixed(1).padStart(6)}  ${k}`);
}
