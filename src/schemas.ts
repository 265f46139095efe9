// Request-body JSON Schemas under schemas/, each compiled once on first use. Errors read as one
// line naming the field path (`body.parts[0].kind: must be one of ...`), with the same formatter
// as config files.

import { readdirSync, readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { formatSchemaError } from './config/schema.js';
import { type SchemaSet, validatorsOf } from './precompiled.js';

const SCHEMA_DIR = new URL('../schemas/', import.meta.url);

/** Every request schema: `schemas/<name>.schema.json` except the config file's. */
const REQUEST_SCHEMA_NAMES = readdirSync(SCHEMA_DIR)
  .filter((f) => f.endsWith('.schema.json') && f !== 'config.schema.json')
  .map((f) => f.slice(0, -'.schema.json'.length))
  .sort();

const read = (name: string) => JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as { $id: string };

/** The request validators, compiled at build time (src/precompiled.ts). */
export const REQUEST_SCHEMAS: SchemaSet = (() => {
  const schemas = REQUEST_SCHEMA_NAMES.map((name) => ({ name, schema: read(name) }));
  return {
    name: 'requests',
    options: { allErrors: false, useDefaults: true, verbose: true, strict: false },
    schemas: schemas.map((s) => s.schema),
    exports: Object.fromEntries(schemas.map((s) => [s.name.replace(/-/g, '_'), s.schema.$id])),
  };
})();

const { validators } = await validatorsOf(REQUEST_SCHEMAS);
/** By file name: every request is checked, and a regular expression per lookup showed in profiles. */
const byName = new Map(REQUEST_SCHEMA_NAMES.map((name) => [name, validators[name.replace(/-/g, '_')]]));

/** The validator of `schemas/<name>.schema.json`. */
export function validatorFor(name: string): ValidateFunction {
  const v = byName.get(name);
  if (!v) throw new Error(`no request schema ${name}`);
  return v;
}

/** Validates `value` in place (defaults filled); returns the error line or undefined. */
export function check(name: string, value: unknown, root: string): string | undefined {
  const v = validatorFor(name);
  if (v(value)) return undefined;
  const errs = (v.errors ?? []).filter((e) => e.keyword !== 'if');
  return formatSchemaError(errs[0] ?? v.errors![0]!, value, root);
}
