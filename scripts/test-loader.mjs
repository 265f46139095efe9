// Module hooks for a run's test processes: each .ts file of the package loads as the JavaScript
// scripts/test-build.mjs compiled (SVC_TEST_BUILD), under the .ts file's own URL, so
// `import.meta.url` and relative paths are those of the sources. A .ts file added since: run again.

import { readFileSync, readdirSync, writeSync } from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

const ROOT = `${pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')).href}/`;

/** Installs the hooks in this thread (Node's hooks thread loads this file again) and maps stack traces. */
export function registerHooks() {
  process.setSourceMapsEnabled(true);
  register(import.meta.url, { data: { build: process.env.SVC_TEST_BUILD } });
}

// In the main thread; a worker thread the sources start (src/threads.ts) calls registerHooks itself.
if (isMainThread && process.env.SVC_TEST_BUILD) {
  registerHooks();
  process.env.SVC_THREAD_LOADER = import.meta.url;
  process.once('exit', reportCpu);
}

/** Tells scripts/run-tests.mjs the CPU seconds this file cost, with the processes it waited for (svc, chromium). */
function reportCpu() {
  try {
    // /proc/self/stat after the command's closing parenthesis: fields 14-17 are utime, stime, cutime, cstime in ticks.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = f.slice(11, 15).reduce((n, t) => n + Number(t), 0);
    writeSync(2, `\ntests: cpu ${(ticks / 100).toFixed(1)} s\n`);
  } catch {
    // not Linux: no count
  }
}

/** URL of each compiled .ts file -> its JavaScript file (src/ is built at the top, as in dist/). */
const compiled = new Map();

export function initialize({ build }) {
  const walk = (rel) => {
    for (const e of readdirSync(path.join(build, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const ts = `${ROOT}${/^(test|bench|scripts)\//.test(r) ? '' : 'src/'}${r.slice(0, -3)}.ts`;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.js')) compiled.set(ts, path.join(build, r));
    }
  };
  walk('');
}

/** TypeScript's ESM imports name the .js a .ts file becomes: `./x.js` is `./x.ts` here. */
export async function resolve(specifier, context, next) {
  // A thread's entry is imported by URL from its eval'd code, which has no parent of ours.
  if (specifier.startsWith('file:') || (context.parentURL?.startsWith(ROOT) && specifier.startsWith('.'))) {
    const url = new URL(specifier, context.parentURL).href;
    const ts = url.endsWith('.js') ? `${url.slice(0, -3)}.ts` : url;
    if (compiled.has(ts)) return { url: ts, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  const js = compiled.get(url);
  return js ? { format: 'module', source: readFileSync(js), shortCircuit: true } : next(url, context);
}
