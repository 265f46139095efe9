// A copy of the checkout for a test run with each TypeScript file of src/, test/, bench/ and scripts/
// beside its JavaScript (esbuild, no type check: seconds). All else is a link to the checkout, so
// import.meta.url and relative paths resolve as from the sources, and tests, `svc` and worker
// threads run as plain JavaScript: module hooks cost each process that loads the server ~0.5 s of CPU.

import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { precompileSchemas } from './precompile-schemas.mjs';
import { filesUnder } from './test-plan.mjs';

/** The folders built; what runs write (.artifacts/) is linked, not copied. */
const BUILT = ['src', 'test', 'bench', 'scripts'];
const KEEP_OUT = new Set(['node_modules', '.artifacts']);

/** Links what the build did not write under `dir` (relative to root): each file, or a whole folder with nothing built in it. */
function linkRest(root, out, dir) {
  for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (!existsSync(path.join(out, rel))) symlinkSync(path.join(root, rel), path.join(out, rel));
    else if (e.isDirectory() && !KEEP_OUT.has(e.name)) linkRest(root, out, rel);
  }
}

/** Builds and returns ROOT/.test-build-<pid>/ (removed at exit); `more`: other folders of tests under ROOT (the runner's own tests'). */
export async function buildForTests(root, more = []) {
  const out = path.join(root, `.test-build-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx')).resolve('esbuild');
  const { build } = await import(pathToFileURL(esbuild).href);
  const dirs = [...BUILT.map((d) => path.join(root, d)), ...more].filter((d) => existsSync(d));
  const entryPoints = dirs.flatMap((d) => filesUnder(d, '.ts', KEEP_OUT).map((f) => path.join(d, f))).filter((f) => !f.endsWith('.d.ts'));
  // Source maps name the .ts files in the checkout (their paths relative to the built file).
  await build({
    entryPoints,
    outdir: out,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    sourcesContent: false,
  });
  mkdirSync(path.join(root, 'test', '.artifacts'), { recursive: true });
  for (const e of readdirSync(root)) {
    if (e === '.git' || e.startsWith('.test-build-')) continue;
    if (BUILT.includes(e)) linkRest(root, out, e);
    else symlinkSync(path.join(root, e), path.join(out, e));
  }
  await precompileSchemas(path.join(out, 'src'));
  return out;
}
