#!/usr/bin/env node
// `node scripts/run-tests.mjs [AREA...] [--unit]` runs test/**/*.test.ts, several processes at once, and judges the run.
// AREA: a folder under test/ or a piece of a file's path; none: every file, and the checks (lint,
// imports, sizes, types) beside them. --unit: only *.unit.test.ts.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildForTests } from './test-build.mjs';
import { ensureTestDeps } from './test-deps.mjs';
import { cpuOf, filesUnder, groupFiles, judge, selectFiles, splitGroupOutput } from './test-plan.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Real paths: the runner's own tests name a folder under test/.artifacts/ through a run's copy.
const TEST = realpathSync(path.resolve(process.env.SVC_TEST_DIR || path.join(ROOT, 'test')));
const TIMINGS_LAST = path.join(TEST, '.artifacts', 'timings.json');
const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
const { env } = process;
const JOBS = Math.max(1, Number(env.SVC_TEST_JOBS) || 2 * os.availableParallelism());
const FILE_LIMIT_MS = Number(env.SVC_TEST_FILE_TIMEOUT_MS) || 5 * 60_000;
// Files of one folder share a process up to this many seconds of their times (loading the server
// once took half the CPU of the http area's files); 0: each alone.
const GROUP_SECONDS = Number(env.SVC_TEST_GROUP_SECONDS ?? 60);

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const areas = args.filter((a) => !a.startsWith('--'));
const isDir = (a) => statSync(path.join(TEST, a), { throwIfNoEntry: false })?.isDirectory();
const files = selectFiles(filesUnder(TEST, '.test.ts'), areas, unitOnly, isDir);
if (files.length === 0) {
  process.stderr.write(`tests: no test file matches ${areas.join(' ') || '(all)'}${unitOnly ? ' (unit tests only)' : ''}\n`);
  process.exit(1);
}

// The checks no test makes, for the whole suite (what CI runs): started after the set-up, beside the tests.
const CHECKS = [
  ['lint and format', ['node_modules/@biomejs/biome/bin/biome', 'check', '.']],
  ['imports', ['scripts/check-imports.mjs']],
  ['file sizes', ['scripts/check-sizes.mjs']],
  ['types', ['node_modules/typescript/bin/tsc', '-b', 'test/tsconfig.json']],
];
const running = new Set();
/** Runs node `argv` in a process group of its own, output collected, killed after `limitMs` if given. */
const run = (argv, env = process.env, limitMs = 0) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child.pid);
    let out = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = limitMs && setTimeout(() => (timedOut = killGroup(child.pid)), limitMs);
    // What it left running goes with it (a leftover holding its output would keep 'close' away).
    child.on('exit', () => killGroup(child.pid));
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child.pid);
      resolve({ code, out, timedOut });
    });
  });
const killGroup = (pid) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
  return true;
};

// Chromium, PostgreSQL and the tools some tests need, installed when missing; pure tests need none.
if (!files.every((f) => f.endsWith('.unit.test.ts')) && ensureTestDeps() !== 0) process.exit(1);

// Quoted: NODE_OPTIONS splits at spaces, and a checkout's path may have some.
const wasm = JSON.stringify(path.join(ROOT, 'scripts', 'test-wasm.cjs'));
/** What every file's process gets in its environment (and passes to the processes it starts). */
const shared = { NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require=${wasm}`.trim() };
/** TEST in the run's copy of the checkout, with JavaScript beside the TypeScript (scripts/test-build.mjs). */
let BUILT_TEST;
async function build() {
  const build = await buildForTests(ROOT, TEST === path.join(ROOT, 'test') ? [] : [TEST]);
  BUILT_TEST = path.join(build, path.relative(ROOT, TEST));
  shared.SVC_TEST_BIN = path.join(build, 'src', 'cli', 'main.js');
}
/** One cluster for every file that uses PostgreSQL (starting one per file costs seconds each). */
async function startPostgres() {
  if (env.SVC_TEST_PG_URL || !files.some((f) => /helpers\/pg(-server)?\.js/.test(readFileSync(path.join(TEST, f), 'utf8')))) return;
  (await import('tsx/esm/api')).register();
  const { startOwnCluster } = await import(pathToFileURL(path.join(ROOT, 'test', 'helpers', 'pg.ts')).href);
  const cluster = await startOwnCluster({ maxConnections: Math.max(300, JOBS * 100) });
  shared.SVC_TEST_PG_URL = cluster.url;
}
await Promise.all([build(), startPostgres()]);
const checks = areas.length === 0 && !unitOnly ? Promise.all(CHECKS.map(([what, argv]) => run(argv).then((r) => ({ what, ...r })))) : [];
const results = [];
const printFailures = () => {
  for (const r of results.filter((x) => !x.ok)) process.stdout.write(`\n==== ${r.file} failed; its output:\n${r.out}\n`);
};
/** Stops every process of the run and exits with `code`, after saying why (and what failed so far). */
const stop = (code, why = '') => {
  printFailures();
  process.stderr.write(why);
  for (const pid of running) killGroup(pid);
  process.exit(code);
};
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => stop(130));
const homes = mkdtempSync(path.join(os.tmpdir(), 'svc-test-homes-'));
process.once('exit', () => rmSync(homes, { recursive: true, force: true }));

/** One file's result and its line. */
function report(file, part, note) {
  const c = judge(part.out);
  const leaked = /\[DEP0137\]/.test(part.out);
  let out = part.out;
  // A handle the garbage collector closed was leaked: every file handle is closed explicitly.
  if (leaked) out += '\ntests: a FileHandle was closed on garbage collection (DEP0137): close it explicitly\n';
  if (part.code === 0 && c.failed > 0) out += '\ntests: some suites did not run their tests (a before hook failed?)\n';
  // A module imported twice runs nothing the second time.
  if (note === undefined && c.total === 0) note = 'ran no test (imported by a file before it in its process?)';
  if (note) out += `\ntests: ${file} ${note}\n`;
  const ok = part.code === 0 && c.failed === 0 && !leaked && !note;
  const failed = ok ? 0 : Math.max(c.failed || 0, 1);
  const r = { file, ms: part.ms ?? 0, cpu: part.cpu ?? 0, ok, out, passed: c.passed || 0, failed, skipped: c.skipped };
  const counts = `${r.passed} passed${failed ? `, ${failed} failed` : ''}${r.skipped ? `, ${r.skipped} skipped` : ''}`;
  const cpu = part.cpu === undefined ? '' : `, cpu ${part.cpu.toFixed(1)} s`;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${file} (${counts}${cpu})\n`);
  return r;
}

/** Runs `files` in one bounded process group with its own HOME: a result per file that started; the others go back on the queue, each alone. */
async function runGroup(files) {
  const t0 = Date.now();
  const HOME = mkdtempSync(path.join(homes, `${files[0].replace(/[/.]/g, '_')}-`));
  const js = files.map((f) => path.join(BUILT_TEST, f.replace(/\.ts$/, '.js')));
  const driver = path.join(ROOT, 'scripts', 'test-group.mjs');
  const { code, out, timedOut } = await run(['--enable-source-maps', driver, ...js], { ...env, ...shared, HOME }, FILE_LIMIT_MS);
  const parts = splitGroupOutput(out, js);
  const ended = parts.filter((p) => p.code !== undefined);
  const results = [];
  for (const [i, file] of files.entries()) {
    const part = parts[i];
    if (!part.started && files.length > 1) {
      queue.unshift([file]);
      continue;
    }
    let note;
    if (part.code === undefined) {
      part.ms = Date.now() - t0 - ended.reduce((n, p) => n + p.ms, 0);
      note = timedOut
        ? `gave no result within ${FILE_LIMIT_MS / 1000} s; stopped`
        : `ended its process (code ${code}) before its tests did`;
    } else if (code !== 0 && !timedOut && ended.length === files.length && i === files.length - 1 && ended.every((p) => p.code === 0))
      note = `ended (its process with code ${code}) after the tests of its process had passed: an error after them?`;
    results.push(report(file, part, note));
  }
  return results;
}

// A failed check stops the run at once: its output is what to read first.
const checked = Promise.resolve(checks).then((done) => {
  for (const c of done) {
    process.stdout.write(c.out);
    if (c.code !== 0) stop(1, `tests: the ${c.what} check failed (npm run lint; npm run typecheck); stopping the run\n`);
  }
});

// Longest first, so the slowest files do not start last: the last run's times, else the kept ones.
const times = { ...readJson(path.join(TEST, 'timings.json')), ...readJson(TIMINGS_LAST) };
const alone = (f) => /^\/\/ tests: a process of its own/m.test(readFileSync(path.join(TEST, f), 'utf8'));
const queue = groupFiles(files, times, GROUP_SECONDS, alone);
const started = Date.now();
/** The host's idle and total CPU time so far: busy near 100% over a run, more files at a time would not help. */
const hostTimes = () =>
  os.cpus().reduce(([idle, all], { times: t }) => [idle + t.idle, all + t.user + t.nice + t.sys + t.irq + t.idle], [0, 0]);
const [idleFrom, allFrom] = hostTimes();
process.stdout.write(
  `tests: ${files.length} file${files.length === 1 ? '' : 's'} in ${queue.length} process${queue.length === 1 ? '' : 'es'}, ${JOBS} at a time\n`,
);
await Promise.all(
  Array.from({ length: Math.min(JOBS, queue.length) }, async () => {
    for (let g = queue.shift(); g !== undefined; g = queue.shift()) results.push(...(await runGroup(g)));
  }),
);
await checked;

printFailures();
const sum = (k) => results.reduce((n, r) => n + r[k], 0);
const [idle, all] = hostTimes();
const busy = Math.round(100 - (100 * (idle - idleFrom)) / Math.max(1, all - allFrom));
// Beside the files: the checks (this process's ended children, less the files).
const others = cpuOf() - sum('cpu') - process.cpuUsage().user / 1e6 - process.cpuUsage().system / 1e6;
process.stdout.write(
  `\nwall time: ${((Date.now() - started) / 1000).toFixed(0)} s with ${JOBS} at a time; cpu: the files' ${sum('cpu').toFixed(0)} s, the checks' and other children's ${others.toFixed(0)} s; the host busy ${busy}%\n`,
);

// Only runs that kept every slot busy record times: a file alone runs faster and would start too late next time.
if (results.length > JOBS) {
  const last = readJson(TIMINGS_LAST);
  for (const r of results) last[r.file] = Math.round(r.ms / 100) / 10;
  mkdirSync(path.dirname(TIMINGS_LAST), { recursive: true });
  writeFileSync(TIMINGS_LAST, `${JSON.stringify(Object.fromEntries(Object.entries(last).sort()), null, 2)}\n`);
}
const skipped = sum('skipped') ? `, ${sum('skipped')} skipped` : '';
process.stdout.write(`\n${sum('passed')} passed, ${sum('failed')} failed${skipped}\n`);
process.exit(results.some((r) => !r.ok) ? 1 : 0);
