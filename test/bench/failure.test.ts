// The benchmark's own check: a scenario that fails to run fails the bench. A run whose svc cannot
// start (SVC_BENCH_BIN names a script that exits at once) must end with exit code 1, say what failed
// after the table, and still write the results it has, with the failure among the notes.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/server.js';
import { tsScript } from '../../bench/lib/ts-loader.js';

const t = suite<{
  dir: string;
  code: number | null;
  output: string;
  results: { notes: string[]; receipts?: { note?: string } } | undefined;
}>('a benchmark run with a scenario that fails to run');

t.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-fail-'));
  const bin = path.join(ctx.dir, 'broken-svc.mjs');
  writeFileSync(bin, "process.stderr.write('this svc cannot start\\n');\nprocess.exit(1);\n");
  const out = path.join(ctx.dir, 'results.json');
  // The receipts rows alone: only svc starts, so every one of them fails at once.
  const child = spawn(
    process.execPath,
    [...tsScript(path.join(ROOT, 'bench/run.ts')), '--quick', '--smoke', '--only', 'receipts', '--out', out],
    {
      cwd: ROOT,
      env: { ...process.env, SVC_BENCH_BIN: bin },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  ctx.code = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  ctx.output = output;
  try {
    ctx.results = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    ctx.results = undefined;
  }
});
t.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

t('exits with code 1', ({ code, output }) => {
  assert.is(code, 1, output.slice(-2000));
});

t('says after the table which step failed to run', ({ output }) => {
  assert.match(output, /FAILED to run: svc serve start \(receipts on\) failed/);
});

t('still writes the results file, with the failure among its notes', ({ results, output }) => {
  assert.type(results, 'object', output.slice(-2000));
  assert.ok(
    results!.notes.some((n) => n.includes('svc serve start (receipts on) failed')),
    JSON.stringify(results!.notes),
  );
});

t.run();
