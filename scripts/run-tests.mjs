#!/usr/bin/env node
// Runs test/**/*.test.ts, one uvu process per file, several at once, and judges the run.
//
//   node scripts/run-tests.mjs [AREA...] [--unit]
//
// Without AREA it also runs the checks (lint, format, imports, types; see below) beside the tests.
// AREA is a folder under test/ (`store`, `store/postgres`) or a piece of a file's path (`apply`);
// several are joined; none means every file. --unit keeps only the pure tests (*.unit.test.ts).
// SVC_TEST_JOBS sets how many files run at once (default: twice the machine's available parallelism);
// SVC_TEST_FILE_TIMEOUT_MS bounds each file (default 5 min), SVC_TEST_TIMEOUT_MS the whole run.
//
// uvu counts a suite whose `before` hook threw as "0 / N" yet exits 0, so the exit code alone can
// lie: a file also fails when its Passed + Skipped != Total, or when no summary could be read.
// Failing files' output is printed in full at the end, then the time and CPU per area (CPU: the
// file's process and its children, scripts/test-cpu.mjs) and the plain `N passed, N failed` line.
//
// What the processes share is set up once here: the tests' system dependencies (Chromium,
// PostgreSQL: scripts/test-deps.mjs), one PostgreSQL cluster (SVC_TEST_PG_URL, each test takes its
// own schema), one JavaScript build of src/ for the `svc` processes tests start (SVC_TEST_BIN) and
// one of what the test processes import (scripts/test-build.mjs). A file run on its own
// (`node --import tsx test/x/y.test.ts`) starts its own cluster and runs `svc` from the sources
// through tsx instead.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureTestDeps } from './test-deps.mjs';
import { judge, orderFiles, selectFiles, testFiles } from './test-plan.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// SVC_TEST_DIR: another folder of tests (the runner's own test points it at fixtures).
const TEST = process.env.SVC_TEST_DIR ? path.resolve(process.env.SVC_TEST_DIR) : path.join(ROOT, 'test');
const TIMINGS_STATIC = path.join(TEST, 'timings.json');
const TIMINGS_LAST = path.join(TEST, '.artifacts', 'timings.json');
// CPU seconds per file of the runs so far (the last run's figure per file), for contributors.
const CPU_LAST = path.join(TEST, '.artifacts', 'cpu.json');

const env = process.env;

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

// Twice the cores: a test spends much of its time waiting on its servers, so with one file per
// core the cores idle (on 2 cores, network+auth took 59 s with 2 at a time, 42 s with 3, 38 s with 4).
const JOBS = Math.max(1, Number(env.SVC_TEST_JOBS) || 2 * os.availableParallelism());
const FILE_LIMIT_MS = Number(env.SVC_TEST_FILE_TIMEOUT_MS) || 5 * 60_000;
const RUN_LIMIT_MS = Number(env.SVC_TEST_TIMEOUT_MS) || 30 * 60_000;

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const areas = args.filter((a) => !a.startsWith('--'));
const files = selectFiles(
  testFiles(TEST),
  areas,
  unitOnly,
  (a) => existsSync(path.join(TEST, a)) && statSync(path.join(TEST, a)).isDirectory(),
);
if (files.length === 0) {
  process.stderr.write(`tests: no test file matches ${areas.join(' ') || '(all)'}${unitOnly ? ' (unit tests only)' : ''}\n`);
  process.exit(1);
}
const needsSvc = files.some((f) => !f.endsWith('.unit.test.ts'));

// The whole suite (no AREA) is what CI runs: it also checks what no test would, the format and
// lint (Biome), import cycles and layers (check-imports.mjs), files over 400 lines
// (check-sizes.mjs) and the types (tsc on test/tsconfig.json, which takes in src/, bench/ and
// scripts/ too; the tests run on an esbuild copy that does not check them). The checks run at once
// and alongside the tests, not before them (tsc alone takes 15 s, which every test used to wait
// for); a failed one stops the run where it is, with its output. An area run skips them to stay
// quick.
const CHECKS = [
  ['lint and format', ['node_modules/@biomejs/biome/bin/biome', 'check', '.']],
  ['imports', ['scripts/check-imports.mjs']],
  ['file sizes', ['scripts/check-sizes.mjs']],
  ['types', ['node_modules/typescript/bin/tsc', '-p', 'test/tsconfig.json', '--noEmit']],
];
/** Runs one check as a child process: its name, exit code and output. */
const runCheck = ([what, cmd]) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, cmd, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ what, code, out }));
  });

// What the tests need outside node_modules (Chromium, PostgreSQL): installed here when missing, so
// the README's `npm test` is the whole recipe, on CI and on a fresh machine alike. Pure tests need
// none of it.
if (needsSvc && ensureTestDeps() !== 0) process.exit(1);

// Absolute, so a test that changes folder still loads it.
const tsx = import.meta.resolve('tsx');
// Reports each file's CPU time, children included (scripts/test-cpu.mjs).
const cpuProbe = pathToFileURL(path.join(ROOT, 'scripts', 'test-cpu.mjs')).href;

const shared = {};
// How a test process loads TypeScript: tsx, or the JavaScript built below (scripts/test-loader.mjs).
let loader = tsx;
/** The builds of the run (scripts/test-build.mjs), side by side. */
async function build() {
  if (env.SVC_TEST_FROM_SOURCE === '1') return;
  const t0 = Date.now();
  const { buildDependencies, buildForTests, buildTestSources } = await import('./test-build.mjs');
  const deps = buildDependencies(ROOT);
  await Promise.all([
    needsSvc && !env.SVC_TEST_BIN && buildForTests(ROOT, deps).then((bin) => (shared.SVC_TEST_BIN = bin)),
    // Tests outside the package (SVC_TEST_DIR elsewhere) cannot be compiled in place; they use tsx.
    !path.relative(ROOT, TEST).startsWith('..') &&
      buildTestSources(ROOT, [TEST], deps).then((dir) => {
        shared.SVC_TEST_SOURCES = dir;
        loader = pathToFileURL(path.join(ROOT, 'scripts', 'test-loader.mjs')).href;
      }),
  ]);
  process.stdout.write(`tests: built the sources for this run in ${Date.now() - t0} ms\n`);
}
const usesPg = (f) => /helpers\/pg(-server)?\.js/.test(readFileSync(path.join(TEST, f), 'utf8'));
/** One cluster for every process (starting one per file costs seconds each). */
async function startPostgres() {
  if (env.SVC_TEST_PG_URL || !files.some(usesPg)) return;
  const t0 = Date.now();
  // The helper is TypeScript, loaded through tsx's API.
  const { register } = await import('tsx/esm/api');
  register();
  const { startOwnCluster } = await import(pathToFileURL(path.join(ROOT, 'test', 'helpers', 'pg.ts')).href);
  const cluster = await startOwnCluster({ maxConnections: Math.max(300, JOBS * 100) });
  shared.SVC_TEST_PG_URL = cluster.url;
  process.stdout.write(`tests: started PostgreSQL for this run in ${Date.now() - t0} ms\n`);
}
await Promise.all([build(), startPostgres()]);
// Started once the set-up is done: the set-up holds every test back, the checks hold none.
const checks = areas.length === 0 && !unitOnly ? Promise.all(CHECKS.map(runCheck)) : Promise.resolve([]);

// Longest first, so the slowest files do not start last: the last run's times, else the kept ones.
const queue = orderFiles(files, { ...readJson(TIMINGS_STATIC), ...readJson(TIMINGS_LAST) });

const results = [];
const running = new Map();
const started = Date.now();
const homes = mkdtempSync(path.join(os.tmpdir(), 'svc-test-homes-'));
process.once('exit', () => rmSync(homes, { recursive: true, force: true }));

const killGroup = (pid) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
};

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    // A HOME of its own: whatever a test leaves under ~ stays with that file.
    const home = path.join(homes, file.replace(/[/.]/g, '_'));
    mkdirSync(home);
    // Its own process group, so a timeout or a leftover child ends with it.
    const cpuFile = path.join(home, '.svc-test-cpu');
    const child = spawn(process.execPath, ['--import', loader, '--import', cpuProbe, path.join(TEST, file)], {
      cwd: ROOT,
      detached: true,
      env: { ...env, ...shared, HOME: home, SVC_TEST_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.set(child.pid, file);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, FILE_LIMIT_MS);
    // What the file left running goes with it (a leftover that inherited its output would also
    // keep 'close' from coming).
    child.on('exit', () => killGroup(child.pid));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      const ms = Date.now() - t0;
      // User + system seconds of the file's process and the children it waited for; NaN without /proc.
      let cpu = Number.NaN;
      let ownCpu = Number.NaN;
      try {
        [cpu, ownCpu] = readFileSync(cpuFile, 'utf8').split(' ').map(Number);
      } catch {
        // killed before its exit hook, or no /proc
      }
      const c = judge(out);
      if (timedOut) out += `\ntests: ${file} gave no result within ${FILE_LIMIT_MS / 1000} s; stopped\n`;
      const unjudged = !Number.isFinite(c.failed);
      // A handle the garbage collector closed was leaked: every file handle is closed explicitly.
      const leaked = /\[DEP0137\]/.test(out);
      if (leaked) out += '\ntests: a FileHandle was closed on garbage collection (DEP0137): close it explicitly\n';
      const ok = !timedOut && code === 0 && !signal && !unjudged && c.failed === 0 && !leaked;
      if (!ok && !timedOut && !signal && code === 0 && c.failed > 0)
        out += '\ntests: some suites did not run their tests (a before hook failed?)\n';
      const r = {
        file,
        ms,
        cpu,
        ownCpu,
        ok,
        out,
        passed: unjudged ? 0 : c.passed,
        failed: unjudged ? 1 : Math.max(c.failed, ok ? 0 : 1),
        skipped: c.skipped || 0,
      };
      results.push(r);
      const counts = `${r.passed} passed${r.failed ? `, ${r.failed} failed` : ''}${r.skipped ? `, ${r.skipped} skipped` : ''}`;
      const cpuText = Number.isFinite(cpu) ? ` ${cpu.toFixed(1).padStart(6)} s CPU` : '';
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${(ms / 1000).toFixed(1).padStart(6)} s${cpuText}  ${file} (${counts})\n`);
      resolve();
    });
  });
}

const stopAll = () => {
  for (const pid of running.keys()) killGroup(pid);
};
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    stopAll();
    process.exit(130);
  });
}
const runTimer = setTimeout(() => {
  process.stderr.write(
    `\ntests: no result after ${RUN_LIMIT_MS / 1000} s; stopping the run (running: ${[...running.values()].join(', ')})\n`,
  );
  stopAll();
  process.exit(1);
}, RUN_LIMIT_MS);
runTimer.unref();

// A check that fails stops the run at once: its output is what to read first.
const checked = checks.then((done) => {
  for (const c of done) {
    process.stdout.write(c.out);
    if (c.code !== 0) {
      process.stderr.write(`tests: the ${c.what} check failed (npm run lint; npm run typecheck); stopping the run\n`);
      stopAll();
      process.exit(1);
    }
  }
});

process.stdout.write(`tests: ${files.length} file${files.length === 1 ? '' : 's'}, ${JOBS} at a time\n`);
await Promise.all(
  Array.from({ length: Math.min(JOBS, queue.length) }, async () => {
    for (let f = queue.shift(); f !== undefined; f = queue.shift()) await runFile(f);
  }),
);
await checked;
clearTimeout(runTimer);

const failedFiles = results.filter((r) => !r.ok);
for (const r of failedFiles) process.stdout.write(`\n==== ${r.file} failed; its output:\n${r.out}\n`);

// Time and CPU per area (top folder), summed over its files. The CPU (user + system of the file's
// process and its children) is what a quiet machine's wall time follows: with N cores busy, a run
// takes about its CPU / N, and never less than its longest file.
const byArea = {};
for (const r of results) {
  const area = r.file.includes('/') ? r.file.slice(0, r.file.indexOf('/')) : '.';
  byArea[area] ??= { ms: 0, cpu: 0 };
  byArea[area].ms += r.ms;
  byArea[area].cpu += Number.isFinite(r.cpu) ? r.cpu : 0;
}
const withCpu = results.some((r) => Number.isFinite(r.cpu));
const line = Object.entries(byArea)
  .sort((a, b) => b[1].ms - a[1].ms)
  .map(([a, t]) => `${a} ${(t.ms / 1000).toFixed(0)} s${withCpu ? ` (${t.cpu.toFixed(0)} s CPU)` : ''}`)
  .join(', ');
const wallS = (Date.now() - started) / 1000;
process.stdout.write(`\nfile time per area: ${line}\nwall time: ${wallS.toFixed(0)} s with ${JOBS} at a time\n`);
if (withCpu) {
  const cpuSum = results.reduce((n, r) => n + (Number.isFinite(r.cpu) ? r.cpu : 0), 0);
  const top = [...results]
    .filter((r) => Number.isFinite(r.cpu))
    .sort((a, b) => b.cpu - a.cpu)
    .slice(0, 5)
    .map((r) => `${r.file} ${r.cpu.toFixed(0)} s`)
    .join(', ');
  // The test processes' own share (tsx, the tests, src/ imported in-process); the rest is the
  // processes they start.
  const ownSum = results.reduce((n, r) => n + (Number.isFinite(r.ownCpu) ? r.ownCpu : 0), 0);
  process.stdout.write(
    `CPU: ${cpuSum.toFixed(0)} s of tests, ${ownSum.toFixed(0)} s of it in the test processes themselves (about ${(cpuSum / os.availableParallelism()).toFixed(0)} s of wall on ${os.availableParallelism()} idle cores); most: ${top}\n`,
  );
}

try {
  mkdirSync(path.dirname(TIMINGS_LAST), { recursive: true });
  // Wall times only from runs that kept every slot busy: a file run alone (or with one other) takes
  // less than among others and would then start too late in the next full run (a cli run started
  // credentials last, after one of it alone: 41 s on the critical path).
  if (results.length > JOBS) {
    const last = readJson(TIMINGS_LAST);
    for (const r of results) last[r.file] = Math.round(r.ms / 100) / 10;
    writeFileSync(TIMINGS_LAST, `${JSON.stringify(Object.fromEntries(Object.entries(last).sort()), null, 2)}\n`);
  }
  const cpu = readJson(CPU_LAST);
  for (const r of results) if (Number.isFinite(r.cpu)) cpu[r.file] = Math.round(r.cpu * 10) / 10;
  writeFileSync(CPU_LAST, `${JSON.stringify(Object.fromEntries(Object.entries(cpu).sort()), null, 1)}\n`);
} catch {
  // Timings only order the next run.
}

const sum = (k) => results.reduce((n, r) => n + r[k], 0);
const skipped = sum('skipped');
process.stdout.write(`\n${sum('passed')} passed, ${sum('failed')} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failedFiles.length > 0 ? 1 : 0);
