// Micro-benchmark of the history read path on a store filled by bench/loader.ts:
// listMessages(before = random cursor, limit 100) + JSON.stringify of the page, in-process.
//
//   node --import tsx bench/tools/history-read.ts DIR [queries]

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { quantile } from '../lib/stats.js';

const dir = process.argv[2]!;
const q = Number(process.argv[3] ?? 2000);
const t0 = performance.now();
const store = await openSqliteStore({ path: path.join(dir, 'svc.db') });
console.log(`open ${(performance.now() - t0).toFixed(0)} ms`);
const cursors = JSON.parse(readFileSync(path.join(dir, 'cursors.json'), 'utf8')) as Record<string, string[]>;
const pool = Object.entries(cursors).flatMap(([room, ids]) => ids.map((id) => ({ room, id })));
const ms: number[] = [];
for (let i = 0; i < q; i++) {
  const c = pool[Math.floor(Math.random() * pool.length)]!;
  const t = performance.now();
  const page = await store.listMessages(`room:${c.room}`, { limit: 100, before: c.id });
  JSON.stringify({ messages: page.items });
  ms.push(performance.now() - t);
}
ms.sort((a, b) => a - b);
console.log(`page p50 ${quantile(ms, 0.5).toFixed(3)} ms, p99 ${quantile(ms, 0.99).toFixed(3)} ms`);
await store.close();
