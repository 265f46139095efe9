// A JavaScript copy of src/, test/, bench/, scripts/ for a test run, by esbuild (no type check) in seconds
// where tsc takes minutes (tsx costs each process ~0.4 s of CPU). Test processes load it through
// scripts/test-loader.mjs; `svc` processes run its cli/main.js (src/ is one folder down, as in dist/).

import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { precompileSchemas } from './precompile-schemas.mjs';
import { filesUnder } from './test-plan.mjs';

/** TypeScript files under the folders `dirs`; what runs write (test/.artifacts/) is left out. */
const sources = (dirs) =>
  dirs
    .filter((d) => existsSync(d))
    .flatMap((d) => filesUnder(d, '.ts', new Set(['node_modules', '.artifacts'])).map((f) => path.join(d, f)))
    .filter((f) => !f.endsWith('.d.ts'));

/** Builds ROOT/.test-build-<pid>/ (removed when this process exits); `more`: other folders of tests. */
export async function buildForTests(root, more = []) {
  const out = path.join(root, `.test-build-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx')).resolve('esbuild');
  const { build } = await import(pathToFileURL(esbuild).href);
  const options = { outdir: out, format: 'esm', platform: 'node', target: 'node20', sourcemap: 'inline', sourcesContent: false };
  await Promise.all([
    build({ ...options, entryPoints: sources([path.join(root, 'src')]), outbase: path.join(root, 'src') }),
    // A test process runs a file under its .ts URL, against which Node resolves its map's sources,
    // written relative to the built file: one folder deeper than the source here, which a
    // sourceRoot of one folder more makes up for (src/ above is built at the same depth).
    build({
      ...options,
      entryPoints: sources([...['test', 'bench', 'scripts'].map((d) => path.join(root, d)), ...more]),
      outbase: root,
      sourceRoot: '_/',
    }),
  ]);
  await precompileSchemas(out);
  return out;
}
