// Request-body JSON Schemas under schemas/, each compiled once on first use. Errors read as one
// line naming the field path (`body.parts[0].kind: must be one of ...`), with the same formatter
// as config files.

import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { formatSchemaError } from './config/schema.js';

const SCHEMA_DIR = new URL('../schemas/', import.meta.url);

const ajv = new Ajv({ allErrors: false, useDefaults: true, verbose: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

/** The compiled validator of `schemas/<name>.schema.json`. */
export function validatorFor(name: string): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    const schema = JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as object;
    v = ajv.compile(schema);
    compiled.set(name, v);
  }
  return v;
}

/** Validates `value` in place (defaults filled); returns the error line or undefined. */
export function check(name: string, value: unknown, root: string): string | undefined {
  const v = validatorFor(name);
  if (v(value)) return undefined;
  const errs = (v.errors ?? []).filter((e) => e.keyword !== 'if');
  return formatSchemaError(errs[0] ?? v.errors![0]!, value, root);
}

/** Compiles every request schema now, so a broken schema fails at start, not on a request. */
export function compileRequestSchemas(): void {
  for (const name of ['send-message', 'create-room', 'update-members', 'register-agent', 'apply', 'attach-frames', 'react'])
    validatorFor(name);
}
