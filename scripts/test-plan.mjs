// What scripts/run-tests.mjs runs and how it judges a file, apart from running anything: which
// files an AREA names, which share a process and in what order, the counts read from uvu's
// summary, a process's CPU.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SKIP_DIRS = new Set(['helpers', 'node_modules', '.artifacts']);

/** Files under `dir` whose names end in `suffix`, as sorted paths relative to it with forward slashes; `skip`: folders left out. */
export function filesUnder(dir, suffix, skip = SKIP_DIRS) {
  return readdirSync(dir, { recursive: true })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith(suffix) && !f.split('/').some((part) => skip.has(part)))
    .sort();
}

/** The files the AREAs name (a folder under test/, else every file whose path contains it; none: all), unit tests only when asked. */
export function selectFiles(all, areas, unitOnly, isDir) {
  const picked = new Set();
  for (const raw of areas) {
    const a = raw
      .replace(/\\/g, '/')
      .replace(/^(\.\/)?test\//, '')
      .replace(/\/+$/, '');
    const dir = isDir(a);
    for (const f of all) if (dir ? f.startsWith(`${a}/`) : f.includes(a)) picked.add(f);
  }
  return all.filter((f) => (areas.length === 0 || picked.has(f)) && (!unitOnly || f.endsWith('.unit.test.ts')));
}

/**
 * The files as the processes that run them, longest first: files of one top folder share a process
 * up to `budget` seconds of their `seconds` (file -> time; none: 5 s, 1 s for a unit test), the
 * longest first into the first with room; a file over the budget, or one `alone` names, is alone.
 */
export function groupFiles(files, seconds, budget, alone = () => false) {
  const weight = (f) => seconds[f] ?? (f.endsWith('.unit.test.ts') ? 1 : 5);
  const groups = [];
  const longestFirst = [...files].sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
  for (const f of longestFirst) {
    const [area, time, open] = [f.split('/')[0], weight(f), !alone(f) && weight(f) < budget];
    const fits = open && groups.find((g) => g.area === area && g.open && g.time + time <= budget);
    if (fits) {
      fits.files.push(f);
      fits.time += time;
    } else groups.push({ area, open, files: [f], time });
  }
  return groups.sort((a, b) => b.time - a.time).map((g) => g.files);
}

/** Counts from uvu's summary; `failed` is NaN when there is none to read. */
export function judge(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const count = (label) => Number((new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(plain) ?? [])[1] ?? NaN);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped') || 0;
  return { total, passed, skipped, failed: total - passed - skipped };
}

/** CPU seconds of process `pid` and the children it waited for (/proc's stat: utime, stime, cutime, cstime); NaN off Linux. */
export function cpuOf(pid = 'self') {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((n, t) => n + Number(t), 0) / 100;
  } catch {
    return NaN;
  }
}

/** A group's output (test-group.mjs) cut at its markers, a part per file of `files`: `started`, and once ended `code`, `cpu`, `ms`. */
export function splitGroupOutput(output, files) {
  const parts = files.map(() => ({ started: false, out: '' }));
  const index = new Map(files.map((f, i) => [f, i]));
  let current = 0;
  for (const line of output.split(/(?<=\n)/)) {
    const start = /^tests: file (.+)\n$/.exec(line);
    const done = /^tests: done (.+) code (\d+) cpu ([\d.]+) ms (\d+)\n$/.exec(line);
    if (start && index.has(start[1])) {
      current = index.get(start[1]);
      parts[current].started = true;
    } else if (done && index.has(done[1])) {
      Object.assign(parts[index.get(done[1])], { code: Number(done[2]), cpu: Number(done[3]), ms: Number(done[4]) });
    } else parts[current].out += line;
  }
  return parts;
}
