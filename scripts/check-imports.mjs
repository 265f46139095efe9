#!/usr/bin/env node
// `npm run lint:imports`: no import cycle between files (src/ and the console's browser scripts in
// templates/console/) and no import from a lower layer to a higher one (src/ only). The layers are
// declared below and explained in docs/architecture.md ("Features and layers").
//
// Cycles are checked by dpdm (or madge) when it is installed, and always by the small graph walk
// here, so the check still holds where the tool is missing. The layer rule is ours: neither tool
// knows our layers. Imports are read with a regex (relative specifiers only; `import type` counts,
// since a type import still ties two files together for a reader).

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

// Lowest first. A file's layer is the one of its longest matching prefix; a file may import its own
// layer or any lower one. Every file of src/ must match (a new top-level folder needs a row here).
const LAYERS = [
  ['base', ['src/protocol/', 'src/errors.ts', 'src/log.ts', 'src/version.ts', 'src/metrics-registry.ts']],
  ['config', ['src/config/', 'src/schemas.ts', 'src/precompiled.ts', 'src/client/']],
  ['store', ['src/store/']],
  ['auth', ['src/auth/']],
  ['network', ['src/events/', 'src/network/', 'src/reactions/', 'src/receipts/']],
  ['http', ['src/http/']],
  ['services', ['src/live/', 'src/pairing/', 'src/relay/', 'src/mcp/', 'src/mcp-http/', 'src/agent-run/', 'src/webhooks/']],
  ['feature-contract', ['src/feature.ts']],
  [
    'features',
    [
      'src/console/',
      'src/discovery/',
      'src/loop-guard/',
      'src/metrics/',
      'src/oauth/',
      'src/request-limits/',
      'src/live/feature.ts',
      'src/pairing/feature.ts',
      'src/pairing/routes.ts',
      'src/mcp-http/feature.ts',
      'src/reactions/feature.ts',
      'src/reactions/routes.ts',
      'src/receipts/feature.ts',
      'src/receipts/routes.ts',
      'src/webhooks/feature.ts',
    ],
  ],
  ['app', ['src/app.ts', 'src/features.ts']],
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

function layerOf(file) {
  let best;
  LAYERS.forEach(([name, prefixes], rank) => {
    for (const p of prefixes)
      if ((file === p || (p.endsWith('/') && file.startsWith(p))) && (!best || p.length > best.len)) best = { name, rank, len: p.length };
  });
  return best;
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

for (const [file, deps] of graph) {
  if (!file.startsWith('src/')) continue;
  const from = layerOf(file);
  if (!from) {
    problems.push(`${file}: no layer (add its folder to LAYERS in scripts/check-imports.mjs and to docs/architecture.md)`);
    continue;
  }
  for (const dep of deps) {
    const to = layerOf(dep);
    if (to && to.rank > from.rank) problems.push(`${file} (${from.name}) imports ${dep} (${to.name}), a higher layer`);
  }
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
console.log(`lint:imports: ${files} files, no import cycle, no import up a layer${tool ? ` (cycles also checked by ${tool.tool})` : ''}`);
