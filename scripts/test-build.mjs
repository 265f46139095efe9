// A throwaway JavaScript copy of src/ for one test run. tsx compiles on the fly, but every process
// it starts pays ~0.3 s of loader start-up and module hooks, and a full run starts hundreds of `svc`
// processes; esbuild turns src/ into plain ESM in under a second instead (no type check: that is
// `npm run typecheck`). The copy sits one folder below the package root, as dist/ does, so the
// paths src/ resolves from its own location (package.json, schemas/, templates/) hold.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { precompileSchemas } from './precompile-schemas.mjs';

const PREFIX = '.test-build-';

/** TypeScript files under `dir`, recursively. */
function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/** Builds src/ into ROOT/.test-build-<pid>/ and returns the `svc` script there; removed when this process exits. */
export async function buildForTests(root) {
  // Copies left by runs that were killed before their exit hook.
  for (const name of readdirSync(root)) {
    const pid = Number(name.slice(PREFIX.length));
    if (name.startsWith(PREFIX) && Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      rmSync(path.join(root, name), { recursive: true, force: true });
  }
  const out = path.join(root, `${PREFIX}${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  // esbuild comes with tsx (a devDependency), which compiles the same way for single-file runs.
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx')).resolve('esbuild');
  const { build } = await import(pathToFileURL(esbuild).href);
  const src = path.join(root, 'src');
  await build({
    entryPoints: sources(src),
    outdir: out,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  // The schema validators as a build has them (scripts/precompile-schemas.mjs).
  await precompileSchemas(out);
  const bin = path.join(out, 'svc.js');
  writeFileSync(bin, "#!/usr/bin/env node\nimport './cli/main.js';\n");
  if (!existsSync(path.join(out, 'cli', 'main.js'))) throw new Error(`test build: ${out}/cli/main.js missing`);
  return bin;
}
