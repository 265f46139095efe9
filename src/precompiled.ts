// JSON Schema validators compiled when the package is built (Ajv's standalone code), so a start
// of `svc serve` or a config-reading command does not spend a third of its time compiling the
// same schemas again (measured: ~180 ms of a ~550 ms server start, ~40% of `svc init`).
//
// A set's generated module carries the hash of the options and schemas it was made from; when
// the schemas read now differ (a schema edited after the build, or a run from the sources, where
// nothing was generated), the set is compiled at run time as before. Same options, same code:
// the answers are the same either way.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import type { Options, ValidateFunction } from 'ajv';

/** Validators compiled together with the same options; `exports` names each by its schema `$id`. */
export interface SchemaSet {
  name: string;
  options: Options;
  schemas: Array<{ $id: string } & Record<string, unknown>>;
  exports: Record<string, string>;
}

export type Validators = Record<string, ValidateFunction>;

const HERE = new URL('./precompiled/', import.meta.url);

/** What a set was made from: a build's generated module is used only for the same. */
export function hashOf(set: SchemaSet): string {
  return createHash('sha256')
    .update(JSON.stringify([set.options, set.schemas, set.exports]))
    .digest('hex');
}

/** The set's validators: the generated ones in `dir` when they were made from these schemas, else compiled now. */
export async function validatorsOf(set: SchemaSet, dir: URL = HERE): Promise<{ validators: Validators; from: 'build' | 'compiled' }> {
  const file = new URL(`${set.name}.js`, dir);
  if (existsSync(file)) {
    const { hash, ...generated } = (await import(file.href)) as { hash: string } & Validators;
    if (hash === hashOf(set)) return { validators: generated as Validators, from: 'build' };
  }
  // Loaded only here: a build's validators need none of Ajv's compiler (~30 ms to load).
  const { Ajv } = await import('ajv');
  const ajv = new Ajv(set.options);
  for (const s of set.schemas) ajv.addSchema(s);
  const validators = Object.fromEntries(Object.entries(set.exports).map(([name, id]) => [name, ajv.getSchema(id)!]));
  return { validators, from: 'compiled' };
}

/** Writes the set's generated module into `dir` (by default beside this file: the build's copy of it). */
export async function writePrecompiled(set: SchemaSet, dir: URL = HERE): Promise<string> {
  const { default: standalone } = await import('ajv/dist/standalone/index.js');
  const { Ajv } = await import('ajv');
  const ajv = new Ajv({ ...set.options, code: { source: true, esm: true } });
  for (const s of set.schemas) ajv.addSchema(s);
  let code = standalone.default(ajv, set.exports);
  // Ajv's ESM output still requires its runtime helpers (ucs2length): made imports here.
  const helpers: string[] = [];
  code = code.replace(/require\("([^"]+)"\)/g, (_m, spec: string) => {
    helpers.push(`import __helper${helpers.length} from ${JSON.stringify(`${spec}.js`)};`);
    return `__helper${helpers.length - 1}`;
  });
  code = code.replace(/^"use strict";/, '');
  mkdirSync(dir, { recursive: true });
  const file = new URL(`${set.name}.js`, dir);
  writeFileSync(file, `${helpers.join('\n')}\nexport const hash = ${JSON.stringify(hashOf(set))};\n${code}`);
  return file.pathname;
}
