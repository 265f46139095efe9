// A throwaway JavaScript copy of src/ for one test run. tsx compiles on the fly, but every process
// it starts pays ~0.3 s of loader start-up and module hooks, and a full run starts hundreds of `svc`
// processes; esbuild turns src/ into plain ESM in under a second instead (no type check: that is
// `npm run typecheck`). The copy sits one folder below the package root, as dist/ does, so the
// paths src/ resolves from its own location (package.json, schemas/, templates/) hold.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { precompileSchemas } from './precompile-schemas.mjs';
import { bundleDependencies } from './test-deps-bundle.mjs';

const PREFIX = '.test-build-';

/** TypeScript files under `dir`, recursively; test/.artifacts/ (what runs write) is left out. */
function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== '.artifacts') out.push(...sources(p));
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

/** esbuild's `build`, from the copy tsx (a devDependency) brings, which compiles the same way for single-file runs. */
async function esbuildBuild() {
  const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx')).resolve('esbuild');
  return (await import(pathToFileURL(esbuild).href)).build;
}

/** An empty ROOT/<prefix><pid>/ for this run, removed when this process exits. */
function runFolder(root, prefix) {
  // Copies left by runs that were killed before their exit hook.
  for (const name of readdirSync(root)) {
    const pid = Number(name.slice(prefix.length));
    if (name.startsWith(prefix) && Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      rmSync(path.join(root, name), { recursive: true, force: true });
  }
  const out = path.join(root, `${prefix}${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  process.once('exit', () => rmSync(out, { recursive: true, force: true }));
  return out;
}

/**
 * Bundles the dependencies both builds load (scripts/test-deps-bundle.mjs) into
 * ROOT/.test-deps-<pid>/node_modules/; resolves to that node_modules folder, removed when this
 * process exits. The builds link it as their own node_modules, where Node looks first.
 */
export async function buildDependencies(root) {
  const out = runFolder(root, '.test-deps-');
  await bundleDependencies(await esbuildBuild(), root, out);
  return path.join(out, 'node_modules');
}

/** Links `deps` (a promise of buildDependencies) as `out`/node_modules once it is built. */
const linkDependencies = async (out, deps) => symlinkSync(await deps, path.join(out, 'node_modules'));

/**
 * Builds src/ into ROOT/.test-build-<pid>/ and returns the `svc` script there; removed when this
 * process exits. `deps`: buildDependencies's promise.
 *
 * Two builds of src/ side by side. One file per module, as dist/ has it: the checkpoint worker,
 * the precompiled validators and the paths src/ resolves from its own location (package.json,
 * schemas/, templates/) live there. And the `svc` script's bundle in bundle/: the CLI with its
 * commands split where they are imported lazily, so a `svc serve` loads about 10 files instead of
 * 60 (0.31-0.34 s of CPU to start on the memory store instead of 0.43-0.49 s). In the bundle each
 * module's `import.meta.url` is its file's in the first build, so every path resolves as it does
 * there and in dist/.
 */
export async function buildForTests(root, deps) {
  const out = runFolder(root, PREFIX);
  const build = await esbuildBuild();
  const src = path.join(root, 'src');
  const common = { outdir: out, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' };
  await Promise.all([
    build({ ...common, entryPoints: sources(src), outbase: src }),
    build({
      ...common,
      entryPoints: { main: path.join(src, 'cli', 'main.ts') },
      outdir: path.join(out, 'bundle'),
      bundle: true,
      splitting: true,
      packages: 'external',
      plugins: [keepOwnUrls(src)],
    }),
  ]);
  // The schema validators as a build has them (scripts/precompile-schemas.mjs), and one-file
  // copies of the packages each `svc` process loads (scripts/test-deps-bundle.mjs).
  await Promise.all([precompileSchemas(out), linkDependencies(out, deps)]);
  const bin = path.join(out, 'svc.js');
  writeFileSync(bin, "#!/usr/bin/env node\nimport './bundle/main.js';\n");
  if (!existsSync(path.join(out, 'cli', 'main.js'))) throw new Error(`test build: ${out}/cli/main.js missing`);
  return bin;
}

/**
 * An esbuild plugin for a bundle written to <build>/bundle/: each module of `src` gets, for
 * `import.meta.url`, the URL of its own file in <build> (src/config/schema.ts: ../config/schema.js
 * from the chunk), so the bundle reads and starts what the one-file-per-module build would.
 */
function keepOwnUrls(src) {
  return {
    name: 'keep-own-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (path.relative(src, args.path).startsWith('..')) return undefined;
        const own = `../${path.relative(src, args.path).replace(/\.ts$/, '.js').split(path.sep).join('/')}`;
        const text = readFileSync(args.path, 'utf8');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/** The folders whose TypeScript a test process may import. */
const TEST_SOURCE_DIRS = ['src', 'test', 'bench', 'scripts'];

/**
 * Compiles the TypeScript a test process imports (src/, test/, bench/, scripts/) into
 * ROOT/.test-sources-<pid>/, mirroring ROOT, for scripts/test-loader.mjs: a test process then loads
 * plain JavaScript in place of each .ts file, under the .ts file's own URL, instead of starting
 * tsx (~0.25 s of CPU per process, and more per module it compiles). Source maps point at the .ts
 * files, so stack traces read as they do under tsx. `more`: other folders under ROOT to compile (a
 * run's SVC_TEST_DIR); `deps`: buildDependencies's promise. Returns the folder, removed when this
 * process exits.
 */
export async function buildTestSources(root, more, deps) {
  const out = runFolder(root, '.test-sources-');
  const build = await esbuildBuild();
  const dirs = [...TEST_SOURCE_DIRS.map((d) => path.join(root, d)), ...more];
  const entryPoints = [...new Set(dirs.flatMap((d) => (existsSync(d) ? sources(d) : [])))];
  const result = await build({
    entryPoints,
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
    let text = file.text;
    // esbuild names each source relative to the output file; the module runs under the source's
    // own URL, so the map names it absolutely.
    const at = text.lastIndexOf(MAP);
    if (at >= 0) {
      const map = JSON.parse(Buffer.from(text.slice(at + MAP.length).trim(), 'base64').toString('utf8'));
      map.sources = map.sources.map((s) => pathToFileURL(path.resolve(path.dirname(file.path), s)).href);
      text = `${text.slice(0, at)}${MAP}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
    }
    mkdirSync(path.dirname(file.path), { recursive: true });
    writeFileSync(file.path, text);
  }
  await linkDependencies(out, deps);
  return out;
}
