#!/usr/bin/env node
// Random-seed exploration of the fuzz suites (test/fuzz/*.test.ts): each round runs every suite
// with a new random seed. A failing run writes its counterexample to
// test/.artifacts/fuzz-failures/<suite>-<seed>.json (with the command that replays it).
//
//   npm run fuzz -- [--runs N] [--rounds R] [--suite NAME]
//
// --runs: properties' runs per suite and round (default 1000); --rounds: how many seeds per suite
// (default 1); --suite: only test/fuzz/NAME.test.ts. Exits 1 when any run failed.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FUZZ = path.join(ROOT, 'test/fuzz');
const FAILURES = path.join(ROOT, 'test/.artifacts/fuzz-failures');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1];
  if (v === undefined) throw new Error(`--${name} needs a value`);
  return v;
}

const runs = Number(option('runs', '1000'));
const rounds = Number(option('rounds', '1'));
const only = option('suite', undefined);
if (!(runs >= 1) || !(rounds >= 1)) {
  console.error('usage: npm run fuzz -- [--runs N] [--rounds R] [--suite NAME]');
  process.exit(2);
}
const suites = readdirSync(FUZZ)
  .filter((f) => f.endsWith('.test.ts') && !f.endsWith('.unit.test.ts') && (only === undefined || f === `${only}.test.ts`))
  .sort();
if (suites.length === 0) {
  console.error(`no fuzz suite ${only ?? ''} in test/fuzz`);
  process.exit(2);
}

let failed = 0;
for (let round = 1; round <= rounds; round++) {
  for (const file of suites) {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join('test/fuzz', file)], {
      cwd: ROOT,
      env: { ...process.env, SVC_FUZZ_SEED: String(seed), SVC_FUZZ_RUNS: String(runs), FUZZ_ATTACH_RUNS: String(runs) },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    const ok = r.status === 0 && /Passed:\s+(\d+)/.exec(r.stdout)?.[1] === /Total:\s+(\d+)/.exec(r.stdout)?.[1];
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${file} seed ${seed} runs ${runs} (${secs} s)`);
    if (!ok) {
      failed += 1;
      process.stdout.write(`${r.stdout}\n${r.stderr}\n`);
    }
  }
}
console.log(failed === 0 ? 'no failures' : `${failed} failing run(s); counterexamples in ${path.relative(ROOT, FAILURES)}/`);
process.exit(failed === 0 ? 0 : 1);
