// The benchmark's smoke run (`bench/run.ts --quick --smoke`: tiny sizes, half-second phases, one
// repetition), in three parts that run side by side as three test files (smoke-live,
// smoke-postgres, smoke-store): each must start what it needs, run its scenarios and write a
// results file of the published shape, so the harness cannot rot. Only the shape is asserted:
// speed lives in the benchmark, never in tests.

import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, SVC_BIN } from '../helpers/server.js';
import { tsScript } from '../../bench/lib/ts-loader.js';

export type Json = any;
export interface SmokeRun {
  dir: string;
  results: Json;
  output: string;
  code: number | null;
}

/** A suite whose `before` runs the smoke size of the bench's `parts` (its --only list). */
export function smokeSuite(parts: string[]): Test<SmokeRun> {
  const t = suite<SmokeRun>(`the benchmark smoke run of ${parts.join(', ')}`);
  t.before(async (ctx) => {
    ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-smoke-'));
    const out = path.join(ctx.dir, 'results.json');
    const args = [...tsScript(path.join(ROOT, 'bench/run.ts')), '--quick', '--smoke', '--only', parts.join(','), '--out', out];
    // The script the tests run as svc (from the sources or this run's build): no dist/ needed.
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, SVC_BENCH_BIN: SVC_BIN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // The run bounds itself (its budget); this is the backstop that keeps npm test from hanging.
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
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

  t('exits on its own with every scenario run and writes a results file', ({ code, results, output }) => {
    // A scenario that failed to run fails the bench (exit code 1).
    assert.is(code, 0, output.slice(-3000));
    assert.type(results, 'object', output.slice(-3000));
  });
  return t;
}

const isNum = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
export const numbers = (o: Json, keys: string[], where: string) => {
  assert.type(o, 'object', `${where} is missing`);
  assert.ok(o !== null, `${where} is null`);
  for (const k of keys) assert.ok(isNum(o[k]), `${where}.${k} is not a number: ${JSON.stringify(o[k])}`);
};
/** A reference that could not run is null with a note saying why. */
export const numbersOrNoted = (section: Json, name: string, keys: string[], where: string) => {
  if (section[name] === null) assert.type(section.note, 'string', `${where}.${name} is null without a note`);
  else numbers(section[name], keys, `${where}.${name}`);
};

/**
 * The printed table: every target has met, missed or saturated, or '—' where this run measured
 * nothing for it (the other parts' rows, the stall row without a checkpoint in a tiny store); each
 * of `judged` (a piece of a row's name) has a verdict; and the summary line is there.
 */
export function assertVerdicts(output: string, judged: string[]): void {
  const rows = output.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| scenario'));
  assert.ok(rows.length > 20, `only ${rows.length} table rows`);
  const withVerdict: string[] = [];
  for (const row of rows) {
    const cols = row.split('|').map((c) => c.trim());
    const [target, verdict] = [cols.at(-4), cols.at(-2)];
    if (!target) continue;
    assert.match(verdict ?? '', /^(met|missed|saturated|—)$/, `target "${target}": ${row}`);
    if (verdict !== '—') withVerdict.push(cols[1]!);
  }
  for (const must of judged)
    assert.ok(
      withVerdict.some((w) => w.includes(must)),
      `no verdict on "${must}"`,
    );
  assert.match(output, /targets: \d+ met, \d+ missed, \d+ saturated/);
}

/** Each paced row of `sides` in `section` has the host's idle share and whether it was saturated. */
export function assertIdle(section: Json, sides: string[], where: string): void {
  for (const side of sides) {
    const r = section[side];
    numbers(r, ['idle_pct'], `${where}.${side}`);
    assert.type(r.saturated, 'boolean', `${where}.${side}.saturated`);
    assert.is(r.saturated, r.idle_pct < 20, `${where}.${side}.saturated disagrees with its idle share ${r.idle_pct}`);
  }
}

/** The paced rate is an eighth of the rate the baseline sustained unpaced in the same run. */
export function assertPacedRate(results: Json): void {
  const p = results.params;
  numbers(p, ['paced_rate', 'baseline_unpaced_msgs_per_s'], 'params');
  assert.is(p.paced_share, 0.125);
  // Both are rounded from the same unrounded rate: within one message per second of each other.
  assert.ok(Math.abs(p.paced_rate - 0.125 * p.baseline_unpaced_msgs_per_s) <= 1, `${p.paced_rate} vs ${p.baseline_unpaced_msgs_per_s}`);
}
