// Module hooks for test processes of a full or area run (scripts/run-tests.mjs): each .ts file of
// the package loads as the JavaScript scripts/test-build.mjs compiled for the run
// (SVC_TEST_SOURCES), under the .ts file's own URL, so `import.meta.url` and relative paths are
// those of the sources. A file run on its own uses tsx instead. A .ts file added after the build
// started is not in it and fails to load: run again.
//
//   node --import ./scripts/test-loader.mjs test/x/y.test.ts

import { readFileSync, readdirSync } from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { BUNDLED } from './test-deps-bundle.mjs';

const ROOT = `${pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')).href}/`;

// In the test process's main thread: install the hooks (they run on Node's hooks thread, which
// loads this file again, where isMainThread is false) and map stack traces through source maps.
if (isMainThread && process.env.SVC_TEST_SOURCES) {
  process.setSourceMapsEnabled(true);
  register(import.meta.url, { data: { sources: process.env.SVC_TEST_SOURCES } });
}

/** URL of each compiled .ts file -> its JavaScript file. */
const compiled = new Map();
/** Package name -> URL of its one-file copy in the build (scripts/test-deps-bundle.mjs). */
const bundled = new Map();

/** Lists the build's JavaScript files. */
function index(dir, rel = '') {
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') index(dir, r);
    } else if (e.name.endsWith('.js')) compiled.set(`${ROOT}${r.slice(0, -3)}.ts`, path.join(dir, r));
  }
}

export function initialize(data) {
  index(data.sources);
  for (const name of BUNDLED) bundled.set(name, pathToFileURL(path.join(data.sources, 'node_modules', name, 'index.js')).href);
}

/** Whether a module is the package's own (src/, test/, ...), not one of its dependencies. */
const ours = (url) => url?.startsWith(ROOT) && !url.includes('/node_modules/');

/** TypeScript's ESM imports name the .js a .ts file becomes: `./x.js` is `./x.ts` here. */
export async function resolve(specifier, context, next) {
  // The package's own imports of a bundled dependency get the build's one-file copy, as the `svc`
  // processes of the run do; a dependency importing it keeps the original.
  if (ours(context.parentURL) && bundled.has(specifier)) return { url: bundled.get(specifier), shortCircuit: true };
  if (context.parentURL?.startsWith(ROOT) && (specifier.startsWith('.') || specifier.startsWith('file:'))) {
    const url = new URL(specifier, context.parentURL).href;
    const ts = url.endsWith('.js') ? `${url.slice(0, -3)}.ts` : url;
    if (compiled.has(ts)) return { url: ts, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  const js = compiled.get(url);
  if (js) return { format: 'module', source: readFileSync(js), shortCircuit: true };
  return next(url, context);
}
