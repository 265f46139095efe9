#!/usr/bin/env node
// `npm run lint:imports`: no import cycle between files (src/ and the console's browser scripts in
// templates/console/); and, drawn with each folder of src/ as one room, no cycle between rooms and
// no import from a lower layer to a higher one. The layers are declared below and explained in
// docs/architecture.md ("Features and layers"). Each offending import is printed as file -> file.
//
// Cycles are checked by dpdm (or madge) when it is installed, and always by the small graph walk
// here, so the check still holds where the tool is missing. The layer rule is ours: neither tool
// knows our layers. Imports are read with a regex (relative specifiers only; `import type` counts,
// since a type import still ties two files together for a reader).

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

// Lowest first. Each folder of src/ (with everything under it) and each file at src/'s top is one
// room, and each room stands on one layer: a room may import rooms of its own layer or of a lower
// one, never of a higher one. Every room of src/ must be placed (a new top-level folder needs a
// row here and in docs/architecture.md's layer table, which lists the same rows).
const LAYERS = [
  ['base', ['src/protocol/', 'src/errors.ts', 'src/log.ts', 'src/version.ts', 'src/metrics-registry.ts', 'src/threads.ts']],
  ['config', ['src/config/', 'src/schemas.ts', 'src/precompiled.ts', 'src/client/']],
  ['store', ['src/store/']],
  ['auth', ['src/auth/']],
  ['network', ['src/events/', 'src/network/']],
  ['http', ['src/http/']],
  ['services', ['src/mcp/', 'src/relay/', 'src/agent-run/']],
  ['feature-contract', ['src/feature.ts', 'src/feature-cli.ts']],
  [
    'features',
    [
      'src/a2a/',
      'src/backup/',
      'src/console/',
      'src/delivery/',
      'src/discovery/',
      'src/export/',
      'src/files/',
      'src/live/',
      'src/loop-guard/',
      'src/mcp-http/',
      'src/message-lifecycle/',
      'src/metrics/',
      'src/oauth/',
      'src/pairing/',
      'src/reactions/',
      'src/receipts/',
      'src/request-limits/',
      'src/retention/',
      'src/webhooks/',
    ],
  ],
  ['app', ['src/app.ts', 'src/features.ts', 'src/feature-commands.ts']],
  ['cli', ['src/cli/']],
];

const CYCLE_ROOTS = [
  { dir: 'src', ext: '.ts' },
  { dir: 'templates/console', ext: '.js' },
];

/** Every file under dir (relative to ROOT, forward slashes) ending in ext. */
function filesUnder(dir, ext) {
  const abs = path.join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return filesUnder(rel, ext);
    return e.name.endsWith(ext) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

const IMPORT =
  /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The files of the tree that file imports (relative specifiers that resolve to a file of the tree). */
function importsOf(file, known) {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const out = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    // TypeScript sources are imported by their emitted .js name.
    const target = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, `${base}/index.ts`].find((c) => known.has(c));
    if (target && target !== file) out.add(target);
  }
  return [...out];
}

/** The room of a src/ file: its top-level folder (`src/live/`), or itself at src/'s top (`src/app.ts`). */
function roomOf(file) {
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
}

/** The layer of a room (its rank: lower stands lower), or undefined when no row places it. */
function layerOf(room) {
  const rank = LAYERS.findIndex(([, rooms]) => rooms.includes(room));
  return rank < 0 ? undefined : { name: LAYERS[rank][0], rank };
}

/** Strongly connected components of more than one file (Tarjan): each is an import cycle. */
function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/** Runs dpdm, else madge, from node_modules; undefined when neither is installed. */
function runCycleTool() {
  const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);
  if (existsSync(bin('dpdm'))) {
    const globs = CYCLE_ROOTS.map((r) => `${r.dir}/**/*${r.ext}`);
    const r = spawnSync(bin('dpdm'), ['--no-tree', '--no-warning', '--no-progress', '--circular', '--exit-code', 'circular:1', ...globs], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    return { tool: 'dpdm', ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
  }
  if (existsSync(bin('madge'))) {
    const r = spawnSync(bin('madge'), ['--circular', '--extensions', 'ts,js', ...CYCLE_ROOTS.map((c) => c.dir)], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    return { tool: 'madge', ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
  }
  return undefined;
}

const problems = [];

const graph = new Map();
for (const { dir, ext } of CYCLE_ROOTS) {
  const files = filesUnder(dir, ext);
  const known = new Set(files);
  for (const f of files) graph.set(f, importsOf(f, known));
}
for (const c of cycles(graph)) problems.push(`import cycle of ${c.length} files: ${c.join(', ')}`);

// Folders as rooms: the room graph, each arrow with the file imports that draw it.
const srcFiles = [...graph.keys()].filter((f) => f.startsWith('src/'));
const roomGraph = new Map();
/** `from room -> to room` -> the imports (file -> file) behind that arrow. */
const arrows = new Map();
for (const file of srcFiles) {
  const from = roomOf(file);
  if (!roomGraph.has(from)) roomGraph.set(from, new Set());
  for (const dep of graph.get(file)) {
    const to = roomOf(dep);
    if (to === from) continue;
    roomGraph.get(from).add(to);
    const key = `${from} -> ${to}`;
    if (!arrows.has(key)) arrows.set(key, []);
    arrows.get(key).push(`${file} -> ${dep}`);
  }
}
const rooms = [...roomGraph.keys()].sort();
/** The shortest loop through `start` that stays inside `rooms` (BFS): each room once, start first. */
function loopThrough(start, rooms) {
  const prev = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const r = queue.shift();
    for (const to of roomGraph.get(r) ?? []) {
      if (!rooms.has(to)) continue;
      if (to === start) {
        const loop = [];
        for (let x = r; x !== undefined; x = prev.get(x)) loop.unshift(x);
        return loop;
      }
      if (!prev.has(to)) {
        prev.set(to, r);
        queue.push(to);
      }
    }
  }
  return [start];
}
for (const c of cycles(new Map([...roomGraph].map(([r, to]) => [r, [...to]])))) {
  // One loop, arrow by arrow with the imports that draw it: cutting any of its arrows breaks it
  // (the check then names the next loop of these rooms, if one is left).
  const loop = loopThrough(c[0], new Set(c));
  const hops = loop.map((r, i) => `${r} -> ${loop[(i + 1) % loop.length]}`);
  const lines = hops.flatMap((h) => [`  ${h}`, ...arrows.get(h).map((i) => `    ${i}`)]);
  problems.push(`folder cycle among ${c.join(', ')}; one loop:\n${lines.join('\n')}`);
}
for (const room of rooms) {
  if (!layerOf(room)) problems.push(`${room}: no layer (add it to LAYERS in scripts/check-imports.mjs and to docs/architecture.md)`);
}
for (const [key, imports] of [...arrows].sort(([a], [b]) => a.localeCompare(b))) {
  const [from, to] = key.split(' -> ').map(layerOf);
  if (!from || !to || to.rank <= from.rank) continue;
  problems.push(`${key}: up from layer ${from.name} to layer ${to.name}:\n${imports.map((i) => `  ${i}`).join('\n')}`);
}

const tool = runCycleTool();
if (!tool) console.log('lint:imports: neither dpdm nor madge is installed; cycles checked by this script alone');
else if (!tool.ok) problems.push(`${tool.tool} found import cycles:\n${tool.output.trim()}`);

if (problems.length > 0) {
  for (const p of problems) console.error(p);
  console.error(`lint:imports: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  process.exit(1);
}
const files = [...graph.keys()].length;
console.log(
  `lint:imports: ${files} files (${rooms.length} rooms of src/), no import cycle, no import up a layer${tool ? ` (cycles also checked by ${tool.tool})` : ''}`,
);
