#!/usr/bin/env node
// `npm run lint:sizes`: no file of the package's code over 400 lines (src/, the console's
// templates, bin/, scripts/, bench/). A file that long holds more than one concern; split it by
// concern rather than raising the limit. Tests are exempt: a test file reads top to bottom as a list
// of cases, and splitting one scatters its fixtures.

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

const long = FOLDERS.flatMap(filesOf)
  .map((file) => ({ file, lines: readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1 }))
  .filter((f) => f.lines > LIMIT);
if (long.length > 0) {
  for (const f of long) process.stderr.write(`${f.file}: ${f.lines} lines (at most ${LIMIT}; split it by concern)\n`);
  process.exit(1);
}
process.stdout.write(`sizes: no file over ${LIMIT} lines\n`);
