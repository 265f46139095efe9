#!/usr/bin/env node
// `npm run lint:sizes`: no file of the package's code over 400 lines (src/, the console's
// templates, bin/, scripts/, bench/). A file that long holds more than one concern; split it by
// concern rather than raising the limit. Tests are exempt: a test file reads top to bottom as a list
// of cases, and splitting one scatters its fixtures. The test runner's scripts together stay within
// 450 lines: a runner that outgrows that is becoming a build system again.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const LIMIT = 400;
const FOLDERS = ['src', 'templates', 'bin', 'scripts', 'bench'];
const CODE = /\.(ts|mjs|js|css|html)$/;

/** Every code file below `dir`, relative to the root. */
function filesOf(dir) {
  const out = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'profiles') out.push(...filesOf(rel));
    } else if (CODE.test(entry.name) && !entry.name.endsWith('.min.js')) out.push(rel);
  }
  return out;
}

const linesOf = (file) => readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;
const long = FOLDERS.flatMap(filesOf)
  .map((file) => ({ file, lines: linesOf(file) }))
  .filter((f) => f.lines > LIMIT);
for (const f of long) process.stderr.write(`${f.file}: ${f.lines} lines (at most ${LIMIT}; split it by concern)\n`);
const RUNNER = ['run-tests.mjs', 'test-plan.mjs', 'test-group.mjs', 'test-build.mjs', 'test-deps.mjs', 'test-wasm.cjs'];
const RUNNER_LIMIT = 450;
const runner = RUNNER.reduce((n, f) => n + linesOf(path.join('scripts', f)), 0);
if (runner > RUNNER_LIMIT) process.stderr.write(`the test runner's scripts: ${runner} lines (at most ${RUNNER_LIMIT}: simplify it)\n`);
if (long.length > 0 || runner > RUNNER_LIMIT) process.exit(1);
process.stdout.write(`sizes: no file over ${LIMIT} lines; the test runner ${runner} lines\n`);
