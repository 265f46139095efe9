// One-file copies of the packages every `svc` process loads, for the test builds only
// (scripts/test-build.mjs links them into both; scripts/test-loader.mjs points test processes at
// them). A full run starts about 700 `svc` processes, and loading yaml, prom-client (with
// @opentelemetry/api), commander, ws and undici file by file was a third of the CPU a `svc serve`
// spends to start: Node resolves, reads and scans each of their ~150 CommonJS files. Bundled, a
// memory-store `svc serve` starts on 0.46 s of CPU instead of 0.57 s (median of 12 starts each).
// The copies are the build's node_modules/, which Node's resolution finds before the package's
// own, so nothing in src/ changes; installs and dist/ load the packages as published.
//
// Left out: packages imported by subpath (ajv by the precompiled validators, the MCP SDK,
// oidc-provider, sql.js with its .wasm beside it), and those another package also imports (zod,
// which the MCP SDK checks its schemas against): two copies of one package would not be one module.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const BUNDLED = ['yaml', 'prom-client', 'commander', 'ws', 'undici', 'eventsource', 'standardwebhooks', 'chalk'];

/**
 * Writes <out>/node_modules/<name>/ for each of BUNDLED: an ES module that exports what `import`
 * of the package gives (its names, and `default` where it has one), with the package and what it
 * requires in one file. `esbuild`: its build function; `root`: this package's folder, whose
 * node_modules holds the originals.
 */
export async function bundleDependencies(esbuild, root, out) {
  await Promise.all(
    BUNDLED.map(async (name) => {
      // The names as an ES module importing the package sees them (Node's CommonJS export
      // detection included), read from the package itself.
      const ns = await import(name);
      const names = Object.keys(ns).filter((k) => k !== 'default');
      const entry = `export { ${names.join(', ')} } from '${name}';\n${'default' in ns ? `export { default } from '${name}';\n` : ''}`;
      const dir = path.join(out, 'node_modules', name);
      mkdirSync(dir, { recursive: true });
      await esbuild({
        stdin: { contents: entry, resolveDir: root, loader: 'js' },
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        outfile: path.join(dir, 'index.js'),
        logLevel: 'error',
        // The CommonJS inside calls require() for Node's own modules; an ES module has none.
        banner: { js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);" },
      });
      writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name, type: 'module', exports: './index.js' })}\n`);
    }),
  );
}
