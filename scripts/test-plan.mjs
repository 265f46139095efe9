// What scripts/run-tests.mjs runs and how it judges a file, apart from running anything: which
// files an AREA names, their order, and the counts read from uvu's summary.

import { readdirSync } from 'node:fs';
import path from 'node:path';

const SKIP_DIRS = new Set(['helpers', 'node_modules', '.artifacts']);

/** Test files under `dir`, as paths relative to it with forward slashes. */
export function testFiles(dir, rel = '') {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...testFiles(path.join(dir, e.name), rel ? `${rel}/${e.name}` : e.name));
    } else if (e.name.endsWith('.test.ts')) out.push(rel ? `${rel}/${e.name}` : e.name);
  }
  return out.sort();
}

/** The files the AREAs name (a folder under test/, else every file whose path contains it; none: all), unit tests only when asked. */
export function selectFiles(all, areas, unitOnly, isDir) {
  let files = all;
  if (areas.length > 0) {
    const picked = new Set();
    for (const raw of areas) {
      const a = raw
        .replace(/\\/g, '/')
        .replace(/^(\.\/)?test\//, '')
        .replace(/\/+$/, '');
      const dir = isDir(a);
      for (const f of all) if (dir ? f.startsWith(`${a}/`) : f.includes(a)) picked.add(f);
    }
    files = all.filter((f) => picked.has(f));
  }
  return unitOnly ? files.filter((f) => f.endsWith('.unit.test.ts')) : files;
}

/** Longest first by `seconds` (file -> time); a file with none is guessed: 20 s, or 1 s for a unit test. */
export function orderFiles(files, seconds) {
  const weight = (f) => seconds[f] ?? (f.endsWith('.unit.test.ts') ? 1 : 20);
  return [...files].sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
}

/** Counts from uvu's summary; `failed` is NaN when there is none to read. */
export function judge(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const count = (label) => Number((new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(plain) ?? [])[1] ?? NaN);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped') || 0;
  const failed = Number.isFinite(total) && Number.isFinite(passed) ? total - passed - skipped : NaN;
  return { total, passed, skipped, failed };
}
