// Micro-benchmark of the sqlite store's write path: N single-message batches shaped like
// sendMessage's, awaited in groups of `concurrency` (as concurrent HTTP requests would be).
//
//   node --import tsx bench/tools/store-write.ts [N] [concurrency]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { newId } from '../../src/protocol/ids.js';
import type { Message, ServiceEvent } from '../../src/protocol/types.js';

const n = Number(process.argv[2] ?? 20000);
const conc = Number(process.argv[3] ?? 50);
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sw-'));
const store = await openSqliteStore({ path: path.join(dir, 'svc.db') });
await store.write([
  {
    op: 'room.create',
    room: { id: 'r', name: 'r', members: ['p'], visibility: 'public', write_policy: 'members' },
    at: 'x',
    event: () => ({ id: newId('evt'), type: 'room.created', network_id: 'n', created_at: 'x' }),
  },
]);
const from = { type: 'agent', id: 'p', network_id: 'n', fqid: 'svc://n/agents/p' };
const one = () => {
  const at = new Date().toISOString();
  const message: Message = {
    id: newId('msg'),
    network_id: 'n',
    target: { kind: 'room', room_id: 'r' },
    from,
    parts: [{ kind: 'text', text: 'hello there, a message of ordinary length' }],
    mentions: [],
    created_at: at,
  };
  const event: ServiceEvent = { id: newId('evt'), type: 'message.created', network_id: 'n', created_at: at, message };
  return store.write([{ op: 'message.insert', record: { message, conv: 'room:r', event_id: event.id }, event, artifacts: [] }]);
};
const cpu0 = process.cpuUsage();
// The longest event-loop stall while writing (index upkeep and checkpoints included).
const stalls = monitorEventLoopDelay({ resolution: 1 });
stalls.enable();
const t0 = performance.now();
for (let i = 0; i < n; i += conc) {
  const batch = [];
  for (let j = 0; j < conc && i + j < n; j++) batch.push(one());
  await Promise.all(batch);
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
stalls.disable();
console.log(
  `${n} writes in ${ms.toFixed(0)} ms: ${Math.round((n / ms) * 1000)}/s, main-thread cpu ${((cpu.user + cpu.system) / n).toFixed(1)} us/write, longest stall ${(stalls.max / 1e6).toFixed(1)} ms, p99 stall ${(stalls.percentile(99) / 1e6).toFixed(1)} ms`,
);
await store.close();
rmSync(dir, { recursive: true, force: true });
