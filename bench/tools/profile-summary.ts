// Summarizes a .cpuprofile (node --cpu-prof): self time per function, and total (inclusive) time
// for functions whose URL matches a filter. Used while tuning; not part of the run.
//
//   node --import tsx bench/tools/profile-summary.ts FILE.cpuprofile [--top 30] [--match src/] [--owners dist/] [--from S]
//
// --owners charges each sample to the innermost frame whose URL matches (our own code), so
// time spent in Node internals and libraries lands on the function of ours that asked for it.
// --from skips the first S seconds of the profile (start-up and the JIT's warm-up).

import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const args = process.argv.slice(2);
const file = args[0]!;
const top = args.includes('--top') ? Number(args[args.indexOf('--top') + 1]) : 30;
const match = args.includes('--match') ? args[args.indexOf('--match') + 1]! : undefined;
const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const ownersOf = args.includes('--owners') ? args[args.indexOf('--owners') + 1]! : undefined;
const fromUs = args.includes('--from') ? Number(args[args.indexOf('--from') + 1]) * 1e6 : 0;
const self = new Map<string, number>();
const total = new Map<string, number>();
const owned = new Map<string, number>();
let all = 0;
let at = 0;
for (let i = 0; i < p.samples.length; i++) {
  const dt = p.timeDeltas[i] ?? 0;
  at += dt;
  if (at < fromUs) continue;
  all += dt;
  let n = byId.get(p.samples[i]!);
  if (!n) continue;
  self.set(label(n), (self.get(label(n)) ?? 0) + dt);
  if (ownersOf) {
    let o: Node | undefined = n;
    while (o && !o.callFrame.url.includes(ownersOf)) o = byId.get(parent.get(o.id) ?? -1);
    const l = o ? label(o) : `(outside ${ownersOf}) ${n.callFrame.functionName || label(n)}`;
    owned.set(l, (owned.get(l) ?? 0) + dt);
  }
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
    n = byId.get(id)!;
    const l = label(n);
    if (seen.has(l)) continue;
    seen.add(l);
    if (!match || n.callFrame.url.includes(match)) total.set(l, (total.get(l) ?? 0) + dt);
  }
}
const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
console.log(`total ${ms(all)} ms\n-- self --`);
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(ms(t), k);
console.log(`-- inclusive${match ? ` (${match})` : ''} --`);
for (const [k, t] of [...total].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(ms(t), k);
if (ownersOf) {
  console.log(`-- owners (${ownersOf}) --`);
  for (const [k, t] of [...owned].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(ms(t), k);
}
