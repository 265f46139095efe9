// Validates a JSON response against the OpenAPI document the server serves: the operation is
// found by method and path (a template like /v1/rooms/{room_id} or a concrete /v1/rooms/general),
// the response by status (else `default`), and the body is checked with ajv against its schema.
// Each (document, operation, status) schema is compiled once, so every end-to-end test can call it.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components?: Record<string, unknown>;
}

interface Checker {
  ajv: Ajv2020;
  templates: { template: string; parts: string[]; literals: number }[];
  compiled: Map<string, ValidateFunction>;
}

const DOC_ID = 'https://svc.invalid/openapi.json';
const checkers = new WeakMap<object, Checker>();

/** Checkers by document text too: each test server's copy of the same document shares one. */
const byText = new Map<string, Checker>();

function checkerOf(doc: OpenApiDocument): Checker {
  let c = checkers.get(doc);
  if (c) return c;
  const text = JSON.stringify(doc);
  c = byText.get(text);
  if (!c) {
    // Formats are annotations here (no ajv-formats); unknown OpenAPI keywords are ignored. A test
    // process compiles a few validators and runs each a few times: unoptimised code and a function
    // per $ref compile in less time than the optimised, inlined code would save.
    const ajv = new Ajv2020({
      strict: false,
      allErrors: true,
      validateFormats: false,
      validateSchema: false,
      code: { optimize: false },
      inlineRefs: false,
    });
    ajv.addSchema({ ...doc, $id: DOC_ID });
    const templates = Object.keys(doc.paths).map((template) => {
      const parts = template.split('/');
      return { template, parts, literals: parts.filter((p) => !p.startsWith('{')).length };
    });
    // More literal segments first: /console/sign-in before /console/{file}.
    templates.sort((a, b) => b.literals - a.literals);
    c = { ajv, templates, compiled: new Map() };
    byText.set(text, c);
  }
  checkers.set(doc, c);
  return c;
}

/** The document's path template that `path` (template or concrete, query ignored) names. */
export function templateOf(doc: OpenApiDocument, path: string): string | undefined {
  const p = path.split('?')[0]!;
  if (doc.paths[p]) return p;
  const parts = p.split('/');
  return checkerOf(doc).templates.find(
    (t) => t.parts.length === parts.length && t.parts.every((s, i) => s.startsWith('{') || s === parts[i]),
  )?.template;
}

const pointer = (...keys: string[]) => keys.map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Throws a clear error unless `body` is what the document promises for `method path` answering
 * `status`: an undocumented path or method (except a 404/405 for it, checked as the error
 * envelope), a status documented without a JSON body, or a body that fails the schema.
 */
export function checkResponse(doc: OpenApiDocument, method: string, path: string, status: number, body: unknown): void {
  const c = checkerOf(doc);
  const m = method.toLowerCase();
  const template = templateOf(doc, path);
  const where = `${method.toUpperCase()} ${path} -> ${status}`;
  const op = template ? doc.paths[template]![m] : undefined;
  let id: string;
  let ref: string;
  if (!op) {
    // No route there: the server's 404 or 405 is the error envelope; anything else is undocumented.
    if (status !== 404 && status !== 405) {
      throw new Error(
        template ? `OpenAPI: ${where}: ${template} documents no ${method.toUpperCase()}` : `OpenAPI: ${where}: no documented path matches`,
      );
    }
    id = 'Error';
    ref = pointer('components', 'schemas', 'Error');
  } else {
    const key = op.responses?.[String(status)] ? String(status) : 'default';
    const content = op.responses?.[key]?.content?.['application/json'];
    if (!content?.schema)
      throw new Error(
        `OpenAPI: ${where}: the document gives no JSON body for ${key === 'default' ? `status ${status} (nor a default)` : `status ${key}`}`,
      );
    id = `${m} ${template} ${key}`;
    ref = pointer('paths', template!, m, 'responses', key, 'content', 'application/json', 'schema');
  }
  let v = c.compiled.get(id);
  if (!v) {
    v = c.ajv.compile({ $ref: `${DOC_ID}#/${ref}` });
    c.compiled.set(id, v);
  }
  if (!v(body)) {
    const errors = (v.errors ?? [])
      .slice(0, 5)
      .map((e) => `  ${e.instancePath || '(body)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    throw new Error(
      `OpenAPI: ${where} (${id}): the body does not match the documented schema:\n${errors.join('\n')}\nbody: ${JSON.stringify(body).slice(0, 500)}`,
    );
  }
}

/** Throws a clear error unless `value` matches components.schemas[`name`] (an SSE Event, say). */
export function checkSchema(doc: OpenApiDocument, name: string, value: unknown): void {
  const c = checkerOf(doc);
  let v = c.compiled.get(`#${name}`);
  if (!v) {
    v = c.ajv.compile({ $ref: `${DOC_ID}#/${pointer('components', 'schemas', name)}` });
    c.compiled.set(`#${name}`, v);
  }
  if (!v(value)) {
    const errors = (v.errors ?? [])
      .slice(0, 5)
      .map((e) => `  ${e.instancePath || '(value)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    throw new Error(
      `OpenAPI: the value does not match components.schemas.${name}:\n${errors.join('\n')}\nvalue: ${JSON.stringify(value).slice(0, 500)}`,
    );
  }
}
