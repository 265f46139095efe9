// Module hooks for a run's test processes: each .ts file of the package loads as the JavaScript
// scripts/test-build.mjs compiled (SVC_TEST_BUILD), under the .ts file's own URL, so
// `import.meta.url` and relative paths are those of the sources. A .ts file added since: run again.

import { existsSync, readFileSync, writeSync } from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { cpuOf } from './test-plan.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT_URL = `${pathToFileURL(ROOT).href}/`;
const BUILD = process.env.SVC_TEST_BUILD;

/** Installs the hooks in this thread (Node's hooks thread loads this file again) and maps stack traces. */
export function registerHooks() {
  process.setSourceMapsEnabled(true);
  register(import.meta.url);
}

// In the main thread; a worker thread the sources start (src/threads.ts) calls registerHooks itself.
if (isMainThread && BUILD) {
  registerHooks();
  process.env.SVC_THREAD_LOADER = import.meta.url;
  // Tells scripts/run-tests.mjs the CPU this file cost, with the processes it waited for (svc, chromium).
  process.once('exit', () => {
    const cpu = cpuOf();
    if (cpu >= 0) writeSync(2, `\ntests: cpu ${cpu.toFixed(1)} s\n`);
  });
}

/** The compiled JavaScript of the package's .ts file at `url`, if the build has it (src/ is built at the top, as in dist/). */
function compiled(url) {
  if (!url.startsWith(ROOT_URL) || !url.endsWith('.ts')) return undefined;
  const rel = path.relative(ROOT, fileURLToPath(url)).replace(/^src\//, '');
  const js = path.join(BUILD, `${rel.slice(0, -3)}.js`);
  return existsSync(js) ? js : undefined;
}

/** TypeScript's ESM imports name the .js a .ts file becomes: `./x.js` is `./x.ts` here. */
export async function resolve(specifier, context, next) {
  // A thread's entry is imported by URL from its eval'd code, which has no parent of ours.
  if (specifier.startsWith('file:') || (context.parentURL?.startsWith(ROOT_URL) && specifier.startsWith('.'))) {
    const url = new URL(specifier, context.parentURL).href;
    const ts = url.endsWith('.js') ? `${url.slice(0, -3)}.ts` : url;
    if (compiled(ts)) return { url: ts, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  const js = compiled(url);
  return js ? { format: 'module', source: readFileSync(js), shortCircuit: true } : next(url, context);
}
