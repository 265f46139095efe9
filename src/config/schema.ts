// The config JSON Schema, compiled once, and the one-line description of what is wrong with a file.

import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { type SchemaSet, validatorsOf } from '../precompiled.js';
import { editDistance } from '../protocol/closest-id.js';

// The schema is read at runtime rather than imported: it lives outside `rootDir` (src/), and the
// same relative URL works from src/config/ (tsx) and dist/config/ (built).
const SCHEMA_URL = new URL('../../schemas/config.schema.json', import.meta.url);

export const configSchema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as { $id: string } & Record<string, unknown>;
export const CONFIG_SCHEMA_ID: string = configSchema.$id;
const PAIRINGS_SCHEMA_ID = `${CONFIG_SCHEMA_ID.replace(/\.schema\.json$/, '')}.pairings.schema.json`;

/** The config's validators, compiled at build time (src/precompiled.ts). */
export const CONFIG_SCHEMAS: SchemaSet = {
  name: 'config',
  options: { allErrors: true, useDefaults: true, verbose: true, strict: true },
  schemas: [
    configSchema,
    // An array of pairing objects checked with the file's own pairing sub-schema (SERVICE_PAIRINGS_JSON).
    { $id: PAIRINGS_SCHEMA_ID, type: 'array', items: { $ref: `${CONFIG_SCHEMA_ID}#/definitions/pairing` } },
  ],
  exports: { validateConfig: CONFIG_SCHEMA_ID, validatePairingList: PAIRINGS_SCHEMA_ID },
};

const { validators } = await validatorsOf(CONFIG_SCHEMAS);

/** Validates (and fills defaults into, in place) a whole parsed config file. */
export const validateConfig: ValidateFunction = validators.validateConfig!;

/** Validates an array of pairing objects with the file's own pairing sub-schema (SERVICE_PAIRINGS_JSON). */
export const validatePairingList: ValidateFunction = validators.validatePairingList!;

/** What each schema pattern is for, so a mismatch reads as a rule instead of a regex. */
const PATTERN_HINTS: Record<string, string> = {
  '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$': 'must be an id: letters, digits, . _ - (max 64), starting with a letter or digit',
  '^(?:svc://[A-Za-z0-9][A-Za-z0-9._-]{0,63}/agents/|[A-Za-z0-9][A-Za-z0-9._-]{0,63}:)?[A-Za-z0-9][A-Za-z0-9._-]{0,63}$':
    'must be an agent id, a scoped id <network_id>:<agent_id>, or svc://<network_id>/agents/<agent_id>',
  '^[A-Za-z_][A-Za-z0-9_]*$': 'must be an environment variable name: letters, digits and _, not starting with a digit',
  '^wss?://[^\\s]+$': 'must be a ws:// or wss:// URL',
  '^https?://[^\\s]+$': 'must be an http:// or https:// URL',
};

/** Turns a JSON pointer (`/auth/tokens/1/scopes/0`) into `auth.tokens[1].scopes[0]`, looking at the data to tell indexes from keys. */
export function keyPath(pointer: string, data?: unknown, prefix = ''): string {
  let out = prefix;
  let node: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const isIndex = Array.isArray(node) || (node === undefined && /^\d+$/.test(seg));
    if (isIndex) out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return out;
}

/** Joins a parent key path and a child key. */
export function joinPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

/** One schema error as `key.path: problem`. */
export function formatSchemaError(err: ErrorObject, data?: unknown, prefix = ''): string {
  const at = keyPath(err.instancePath, data, prefix);
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return `${joinPath(at, String(p.missingProperty))}: is required`;
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const known = Object.keys((err.parentSchema?.properties as object | undefined) ?? {});
      const near = closest(key, known);
      return `${joinPath(at, key)}: unknown key${near ? ` (did you mean ${near}?)` : ''}`;
    }
    default:
      return `${at || '(top level)'}: ${problem(err)}`;
  }
}

/** All errors as lines, for `svc doctor`. */
export function describeSchemaErrors(errors: readonly ErrorObject[], data?: unknown, prefix = ''): string[] {
  return errors.map((e) => formatSchemaError(e, data, prefix));
}

/** The one readable line for a failed validation: the first problem, and how many more there are. */
export function formatSchemaErrors(errors: readonly ErrorObject[] | null | undefined, data?: unknown, prefix = ''): string {
  const lines = [...new Set(describeSchemaErrors(errors ?? [], data, prefix))];
  if (lines.length === 0) return `${prefix || '(top level)'}: is invalid`;
  const more = lines.length - 1;
  return more === 0 ? lines[0]! : `${lines[0]} (and ${more} more problem${more === 1 ? '' : 's'})`;
}

function problem(err: ErrorObject): string {
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type': {
      const types = String(p.type).split(',');
      return `must be ${types.map(withArticle).join(' or ')} (got ${describeValue(err.data)})`;
    }
    case 'pattern':
      return PATTERN_HINTS[String(p.pattern)] ?? `must match ${String(p.pattern)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`;
    case 'minItems':
      return `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    default:
      return err.message ?? 'is invalid';
  }
}

function withArticle(type: string): string {
  const noun = { object: 'object (key: value pairs)', array: 'list' }[type] ?? type;
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  return `${typeof v} ${String(v)}`;
}

/** A known key close enough to `key` to be a typo of it. */
function closest(key: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(1, Math.floor(key.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}
