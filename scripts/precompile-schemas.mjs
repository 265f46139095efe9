// Writes the JSON Schema validators of a build as Ajv standalone code (src/precompiled.ts says
// why), into <build>/precompiled/. Run after the build: `node scripts/precompile-schemas.mjs dist`.

import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Generates every schema set of the build in `dir` (dist/, or a test build). */
export async function precompileSchemas(dir) {
  const load = (file) => import(pathToFileURL(path.join(dir, file)).href);
  const { writePrecompiled } = await load('precompiled.js');
  const { CONFIG_SCHEMAS } = await load('config/schema.js');
  const { REQUEST_SCHEMAS } = await load('schemas.js');
  return Promise.all([CONFIG_SCHEMAS, REQUEST_SCHEMAS].map((set) => writePrecompiled(set)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = path.resolve(process.argv[2] ?? 'dist');
  for (const file of await precompileSchemas(dir)) process.stdout.write(`precompiled ${path.relative(process.cwd(), file)}\n`);
}
