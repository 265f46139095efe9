// Times each step of a redaction's scrub in process on a copy of a loaded store (bench/loader.ts):
// the upkeep's rebuild steps, the swap, the old index's retirement and the checkpoint.
//   node --import tsx bench/tools/rebuild-steps.ts DIR
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { SearchRebuild } from '../../src/store/sqlite/search-rebuild.js';
import { Checkpointer } from '../../src/store/sqlite/engine/checkpoint.js';

const src = path.resolve(process.argv[2]!);
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-steps-'));
cpSync(src, dir, { recursive: true });
const times: Record<string, number[]> = {};
function timed<T extends object>(proto: T, name: keyof T & string, label = name): void {
  const f = proto[name] as unknown as (...a: unknown[]) => unknown;
  (proto as Record<string, unknown>)[name] = function (this: unknown, ...a: unknown[]) {
    const t = performance.now();
    const r = f.apply(this, a);
    (times[label] ??= []).push(performance.now() - t);
    return r;
  };
}
timed(SearchRebuild.prototype, 'step');
timed(Checkpointer.prototype, 'force');
const store = await openSqliteStore({ path: path.join(dir, 'svc.db') });
const idle = async () => {
  for (let i = 0; i < 600; i++) {
    const t = performance.now();
    await new Promise((r) => setTimeout(r, 100));
    if (performance.now() - t < 105 && i > 20) return;
  }
};
await idle();
const cursors = JSON.parse(readFileSync(path.join(src, 'cursors.json'), 'utf8')) as Record<string, string[]>;
const id = Object.values(cursors).flat()[0]!;
const t0 = performance.now();
await store.write([
  {
    op: 'message.redact',
    id,
    at: new Date().toISOString(),
    event: (m) => ({ id: 'ev_x', type: 'message.redacted', created_at: new Date().toISOString(), message: m }) as never,
  },
]);
console.log(`redact write ${(performance.now() - t0).toFixed(1)} ms`);
while (store.scrubPending()) await new Promise((r) => setTimeout(r, 50));
console.log(`scrub ${((performance.now() - t0) / 1000).toFixed(1)} s`);
for (const [k, v] of Object.entries(times)) {
  v.sort((a, b) => a - b);
  console.log(
    `${k}: n=${v.length} p50=${v[v.length >> 1]!.toFixed(1)} p99=${v[Math.floor(v.length * 0.99)]!.toFixed(1)} max=${v[v.length - 1]!.toFixed(1)} ms; top: ${v
      .slice(-5)
      .map((x) => x.toFixed(1))
      .join(', ')}`,
  );
}
await store.close();
rmSync(dir, { recursive: true, force: true });
