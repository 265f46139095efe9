#!/usr/bin/env node
// Runs every test/**/*.test.ts with uvu in one process and judges the run. uvu counts a suite
// whose `before` hook threw as "0 / N" yet exits 0, so the exit code alone can lie: this wrapper
// also fails when Passed + Skipped != Total, bounds the whole run in time, and ends with the plain
// `N passed, N failed` line. First it makes sure the tests' system dependencies are there.

import { spawn } from 'node:child_process';
import { ensureTestDeps } from './test-deps.mjs';

// What the tests need outside node_modules (Chromium): installed here when missing, so the
// README's `npm test` is the whole recipe, on CI and on a fresh machine alike.
if (ensureTestDeps() !== 0) process.exit(1);

const LIMIT_MS = Number(process.env.SVC_TEST_TIMEOUT_MS ?? 20 * 60_000);
const args = ['--import', 'tsx', 'node_modules/uvu/bin.js', 'test', '\\.test\\.ts$', '-i', 'helpers', ...process.argv.slice(2)];
const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });

let out = '';
child.stdout.on('data', (d) => {
  process.stdout.write(d);
  out += d.toString();
});
const timer = setTimeout(() => {
  process.stderr.write(`\ntests: no result after ${LIMIT_MS / 1000} s; stopping the run\n`);
  child.kill('SIGKILL');
}, LIMIT_MS);

child.on('exit', (code, signal) => {
  clearTimeout(timer);
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  const count = (label) => Number((new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(plain) ?? [])[1] ?? NaN);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped') || 0;
  const failed = Number.isFinite(total) && Number.isFinite(passed) ? total - passed - skipped : NaN;
  const unjudged = !Number.isFinite(failed);
  process.stdout.write(`\n${unjudged ? 0 : passed} passed, ${unjudged ? 1 : failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  if (code !== 0 || signal || unjudged || failed !== 0) {
    if (!signal && code === 0 && failed > 0) process.stderr.write('tests: some suites did not run their tests (a before hook failed?)\n');
    process.exit(1);
  }
});
