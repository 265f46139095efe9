// A JavaScript copy of src/, test/, bench/, scripts/ for a test run, by esbuild (no type check) in seconds
// where tsc takes minutes (tsx costs each process ~0.4 s of CPU). Test processes load it through
// scripts/test-loader.mjs; `svc` processes run its cli/main.js (src/ is one folder down, as in dist/).

import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { precompileSchemas } from './precompile-schemas.mjs';

/** TypeScript files under `dir`; test/.artifacts/ (what runs write) is left out. */
function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== '.artifacts' && e.name !== 'node_modules') out.push(...sources(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Builds ROOT/.test-build-<pid>/ (removed when this process exits); `more`: other folders of tests. */
export async function buildForTests(root, more = []) {
  const out = path.join(root, `.test-build-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx')).resolve('esbuild');
  const dirs = [...['src', 'test', 'bench', 'scripts'].map((d) => path.join(root, d)), ...more];
  const entries = {}; // output path -> source: src/x/y.ts is x/y, test/z.ts test/z
  for (const f of dirs.flatMap((d) => (existsSync(d) ? sources(d) : [])))
    entries[path.relative(root, f.slice(0, -3)).replace(/^src\//, '')] = f;
  const result = await (await import(pathToFileURL(esbuild).href)).build({
    entryPoints: entries,
    outdir: out,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
  });
  const MAP = '//# sourceMappingURL=data:application/json;base64,';
  for (const file of result.outputFiles) {
    // A test process runs it under the .ts file's own URL, so the map names that file absolutely.
    const at = file.text.lastIndexOf(MAP);
    const map = JSON.parse(Buffer.from(file.text.slice(at + MAP.length), 'base64').toString('utf8'));
    map.sources = [pathToFileURL(entries[path.relative(out, file.path).slice(0, -3)]).href];
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, `${file.text.slice(0, at)}${MAP}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`);
  }
  await precompileSchemas(out);
  return out;
}
