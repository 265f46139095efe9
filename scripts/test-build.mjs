// A JavaScript copy of src/, test/, bench/ and scripts/ for one test run, by esbuild (no type check)
// in seconds where tsc takes minutes: tsx costs each of a run's hundreds of processes ~0.4 s of CPU.
// Test processes load it through scripts/test-loader.mjs; `svc` processes run its src/cli/main.js,
// with package.json, schemas/, templates/, bin/ and node_modules/ linked beside it as for dist/.

import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
  const result = await (await import(pathToFileURL(esbuild).href)).build({
    entryPoints: [...new Set(dirs.flatMap((d) => (existsSync(d) ? sources(d) : [])))],
    outdir: out,
    outbase: root,
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
    map.sources = [pathToFileURL(path.join(root, path.relative(out, file.path)).replace(/\.js$/, '.ts')).href];
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, `${file.text.slice(0, at)}${MAP}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`);
  }
  for (const p of ['package.json', 'schemas', 'templates', 'bin', 'node_modules']) symlinkSync(path.join(root, p), path.join(out, p));
  await precompileSchemas(path.join(out, 'src'));
  return out;
}
