// The fuzz harness keeps every failure: the counterexample file holds the seed and path, and
// replaying that seed and path (SVC_FUZZ_SEED, SVC_FUZZ_PATH) runs exactly the failing input.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { DEFAULT_SEED, fuzzCheck, fuzzRun } from './harness.js';

const t = suite('the fuzz harness');

t('uses the fixed seed unless told otherwise, a random one for "random", and the replay path', () => {
  assert.equal(fuzzRun(50, {}), { seed: DEFAULT_SEED, numRuns: 50 });
  assert.equal(fuzzRun(50, { SVC_FUZZ_SEED: '7', SVC_FUZZ_RUNS: '3', SVC_FUZZ_PATH: '2:0' }), { seed: 7, numRuns: 3, path: '2:0' });
  const r = fuzzRun(50, { SVC_FUZZ_SEED: 'random' });
  assert.ok(Number.isInteger(r.seed) && r.seed !== DEFAULT_SEED);
  assert.throws(() => fuzzRun(50, { SVC_FUZZ_SEED: 'abc' }));
});

t('writes a failing seed, path and counterexample to a file, and the seed and path replay only that input', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-fuzz-'));
  const before = process.env.SVC_FUZZ_FAILURES_DIR;
  process.env.SVC_FUZZ_FAILURES_DIR = dir;
  try {
    const seen: number[] = [];
    const property = () =>
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), async (n) => {
        seen.push(n);
        if (n > 900) throw new Error(`too big: ${n}`);
      });
    const err = await fuzzCheck('demo', 'test/fuzz/demo.test.ts', property(), { seed: 42, numRuns: 1000 }).catch((e: Error) => e);
    assert.instance(err, Error);
    const files = readdirSync(dir);
    assert.equal(files, ['demo-42.json']);
    const record = JSON.parse(readFileSync(path.join(dir, 'demo-42.json'), 'utf8'));
    assert.is(record.seed, 42);
    assert.type(record.path, 'string');
    assert.ok(record.counterexample[0] > 900, JSON.stringify(record));
    assert.match(record.error, /too big/);
    assert.match(record.replay, /^SVC_FUZZ_SEED=42 SVC_FUZZ_PATH=\S+ node --import tsx test\/fuzz\/demo\.test\.ts$/);
    assert.match((err as Error).message, /demo-42\.json/);

    seen.length = 0;
    const replayed = await fuzzCheck('demo', 'test/fuzz/demo.test.ts', property(), { seed: 42, numRuns: 1000, path: record.path }).catch(
      (e: Error) => e,
    );
    assert.instance(replayed, Error);
    assert.equal(seen, [record.counterexample[0]], 'the replay ran the counterexample alone');
  } finally {
    if (before === undefined) delete process.env.SVC_FUZZ_FAILURES_DIR;
    else process.env.SVC_FUZZ_FAILURES_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
});

t('writes nothing when the property holds', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-fuzz-'));
  process.env.SVC_FUZZ_FAILURES_DIR = dir;
  try {
    await fuzzCheck(
      'ok',
      'x',
      fc.asyncProperty(fc.nat(), async () => {}),
      { seed: 1, numRuns: 20 },
    );
    assert.equal(readdirSync(dir), []);
  } finally {
    delete process.env.SVC_FUZZ_FAILURES_DIR;
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();
