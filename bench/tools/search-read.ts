// Micro-benchmark of the search path on a store filled by bench/loader.ts: the network layer's
// search (scope from the rooms, the store query, snippets) for the loader's ~1% word with limit 20,
// half first pages and half at a random matching cursor, plus JSON.stringify, in-process.
//
//   node --import tsx bench/tools/search-read.ts DIR [queries] [words...]

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { searchMessages } from '../../src/network/search.js';
import type { NetworkContext } from '../../src/network/context.js';
import { quantile } from '../lib/stats.js';
import { NETWORK, SEARCH_WORD } from '../lib/svc.js';

const dir = process.argv[2]!;
const q = Number(process.argv[3] ?? 2000);
const words = process.argv.slice(4);
const t0 = performance.now();
const store = await openSqliteStore({ path: path.join(dir, 'svc.db') });
console.log(`open ${(performance.now() - t0).toFixed(0)} ms`);
const cursors = JSON.parse(readFileSync(path.join(dir, 'search-cursors.json'), 'utf8')) as string[];
// Only what searchMessages reads: the network id, the DM switch, the page limits, the store, no features.
const ctx = {
  config: { network: { id: NETWORK }, server: { direct_messages: true, limits: {} } },
  store,
  extensions: {},
} as unknown as NetworkContext;
const trusted = { kind: 'trusted', credentialKey: 'anonymous' } as const;

for (const word of [SEARCH_WORD, ...words]) {
  const ms: number[] = [];
  for (let i = 0; i < q + 20; i++) {
    const before =
      i % 2 === 1 && word === SEARCH_WORD && cursors.length > 0 ? cursors[Math.floor(Math.random() * cursors.length)] : undefined;
    const t = performance.now();
    const r = await searchMessages(ctx, trusted, { q: word, limit: 20, ...(before ? { before } : {}) });
    JSON.stringify(r);
    if (i >= 20) ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  console.log(`search ${JSON.stringify(word)}: p50 ${quantile(ms, 0.5).toFixed(3)} ms, p99 ${quantile(ms, 0.99).toFixed(3)} ms`);
}
await store.close();
