// The OpenAPI 3.1 document of the running server, built from the router's routes (method, path,
// action -> scopes, request schema), the JSON Schemas under schemas/ and the per-route notes of
// operations.ts (or of the route itself: a feature's `doc`). Nothing here restates a route: a route added without notes, or notes left for a
// route that is gone, is reported in `problems` (the OpenAPI test fails on any).

import { readdirSync, readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { RULES } from '../../auth/policy.js';
import type { Route } from '../router.js';
import { OPERATIONS, ref, type OperationDoc, type ResponseDoc } from './operations.js';

const SCHEMA_DIR = new URL('../../../schemas/', import.meta.url);
const API_DIR = new URL('api/', SCHEMA_DIR);

export interface BuiltDocument {
  document: Record<string, unknown>;
  /** Routes without notes in OPERATIONS and notes naming no route; empty when the two agree. */
  problems: string[];
}

/** "METHOD /path" as OPERATIONS keys it. */
export const operationKey = (r: Pick<Route, 'method' | 'path'>): string => `${r.method} ${r.path}`;

/** `/v1/rooms/:room_id` -> `/v1/rooms/{room_id}`. */
// A parameter is a whole segment starting with `:` (a colon inside a segment is literal: A2A's `message:send`).
export const openApiPath = (path: string): string => path.replace(/(?<=\/):([A-Za-z0-9_]+)/g, '{$1}');

/** The OpenAPI document of these routes (the full table of a running app). */
export function buildOpenApi(routes: readonly Route[], version: string): BuiltDocument {
  const problems: string[] = [];
  const schemas = componentSchemas(routes);
  const paths: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  const tags = new Set<string>(Object.values(OPERATIONS).map((o) => o.tag));
  for (const route of routes) {
    const key = operationKey(route);
    if (seen.has(key)) continue; // the router answers the first of two equal routes
    seen.add(key);
    const doc = route.doc ?? OPERATIONS[key];
    if (!doc) problems.push(`route ${key} has no entry in src/http/openapi/operations/ (joined in operations.ts) and no doc of its own`);
    if (route.doc && OPERATIONS[key]) problems.push(`route ${key} has its own doc and an entry in operations.ts: keep one`);
    if (doc) tags.add(doc.tag);
    const at = openApiPath(route.path);
    paths[at] = { ...paths[at], [route.method.toLowerCase()]: operation(route, doc) };
  }
  for (const key of Object.keys(OPERATIONS)) if (!seen.has(key)) problems.push(`operations.ts documents ${key}, which is no route`);

  const document = {
    openapi: '3.1.0',
    info: {
      title: 'svc HTTP API',
      version,
      description:
        'The HTTP API of one svc network. Errors answer with the Error envelope (a stable `code`). Lists answer a page at a time: pass `page.next_before` as `before`. ' +
        "Which routes an anonymous caller may use depends on the server's auth settings (`x-svc-access.anonymous`). " +
        "The agents' WebSocket (GET /v1/attach, protocol service.attach.v1) is an upgrade, outside this document.",
    },
    servers: [{ url: '/' }],
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A static token from svc.yaml or an agent token from registration. The scopes listed per operation: one of them is needed.',
        },
        console_session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description: "The console's session cookie (same-origin requests only); it carries its token's scopes.",
        },
      },
    },
  };
  return { document, problems };
}

function operation(route: Route, doc: OperationDoc | undefined): Record<string, unknown> {
  const d: OperationDoc = doc ?? {
    tag: 'undocumented',
    summary: `${route.method} ${route.path}`,
    responses: { 200: { description: 'OK' } },
  };
  const params = [
    ...[...route.path.matchAll(/(?<=\/):([A-Za-z0-9_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string', minLength: 1 },
    })),
    ...(d.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      description: q.description,
      required: q.required === true,
      schema: q.repeat ? { type: 'array', items: q.schema ?? { type: 'string' } } : (q.schema ?? { type: 'string' }),
      ...(q.repeat ? { style: 'form', explode: true } : {}),
    })),
    ...(d.headers ?? []).map((h) => ({
      name: h.name,
      in: 'header',
      description: h.description,
      required: false,
      schema: { type: 'string' },
    })),
  ];
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: d.summary,
    ...(d.description ? { description: d.description } : {}),
    tags: [d.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(route.schema
      ? {
          requestBody: {
            required: !route.body?.optional,
            content: { 'application/json': { schema: ref(requestSchemaName(route.schema)) } },
          },
        }
      : d.request
        ? {
            requestBody: {
              required: true,
              content: Object.fromEntries(Object.entries(d.request).map(([media, schema]) => [media, { schema }])),
            },
          }
        : {}),
    responses: responses(route, d),
    ...access(route),
  };
  return op;
}

/** `GET /v1/rooms/:room_id/messages` -> `get_v1_rooms_room_id_messages`; `/console/` -> `get_console_index`. */
function operationId(route: Route): string {
  const p = route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '');
  const index = route.path.length > 1 && route.path.endsWith('/') ? '_index' : '';
  return `${route.method.toLowerCase()}_${p || 'root'}${index}`;
}

/** The route's own answers, then the error answers its kind can give (each with the envelope). */
function responses(route: Route, d: OperationDoc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(d.responses)) out[status] = response(r);
  const errors = new Set<number>(d.errors ?? []);
  if (route.schema || (d.query ?? []).length > 0) errors.add(400);
  if (route.schema) errors.add(413);
  if (!route.lenientAuth) errors.add(401); // an invalid Authorization header, whatever the route
  if (route.action) errors.add(403);
  if (route.path.includes(':')) errors.add(404);
  errors.add(429); // request limits apply to every route
  const envelope = { 'application/json': { schema: ref('Error') } };
  for (const s of [...errors].sort((a, b) => a - b)) {
    const own = out[String(s)] as { description: string; content?: Record<string, unknown> } | undefined;
    // A page the route answers itself (the console's 401) or the gate's envelope before it.
    if (own) own.content = { ...own.content, ...envelope };
    else out[String(s)] = { description: STATUS_CODES[s] ?? 'Error', content: envelope };
  }
  out.default = {
    description: 'Any other error (404, 405, 500, 503...), as the error envelope.',
    content: { 'application/json': { schema: ref('Error') } },
  };
  return out;
}

function response(r: ResponseDoc): Record<string, unknown> {
  const headers = r.headers?.length ? { headers: Object.fromEntries(r.headers.map((h) => [h, { schema: { type: 'string' } }])) } : {};
  if (r.json !== undefined) return { description: r.description, ...headers, content: { 'application/json': { schema: ref(r.json) } } };
  if (r.media !== undefined) return { description: r.description, ...headers, content: { [r.media]: { schema: { type: 'string' } } } };
  return { description: r.description, ...headers };
}

/** Who may call: the scopes (any one suffices) as bearer and cookie roles, and when no token is needed. */
function access(route: Route): Record<string, unknown> {
  if (!route.action) return { security: [], 'x-svc-access': { public: true } };
  const rule = RULES[route.action];
  const scopes = [...rule.scopes];
  return {
    security: [{ bearer: scopes }, { console_session: scopes }, ...(rule.anonymous === 'never' ? [] : [{}])],
    'x-svc-access': {
      action: route.action,
      any_of_scopes: scopes,
      // public_read / open_registration: anonymous callers are let in when the server is set so.
      anonymous: rule.anonymous,
      ...(rule.refuseAgentTokens ? { refuses_agent_tokens: true } : {}),
    },
  };
}

/** `send-message` -> `SendMessageRequest`. */
function requestSchemaName(file: string): string {
  return `${file.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase())}Request`;
}

/**
 * components.schemas: every schema of schemas/api/ (named by its title) and the request schemas
 * the routes name. `$schema`/`$id` are dropped (the document's dialect is 2020-12) and file
 * references (`room.schema.json`) become component references.
 */
function componentSchemas(routes: readonly Route[]): Record<string, unknown> {
  const byFile = new Map<string, { name: string; schema: Record<string, unknown> }>();
  for (const f of readdirSync(API_DIR)
    .filter((n) => n.endsWith('.schema.json'))
    .sort()) {
    const schema = JSON.parse(readFileSync(new URL(f, API_DIR), 'utf8')) as Record<string, unknown>;
    byFile.set(f, { name: String(schema.title), schema });
  }
  for (const name of new Set(routes.flatMap((r) => (r.schema ? [r.schema] : [])))) {
    const schema = JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMA_DIR), 'utf8')) as Record<string, unknown>;
    byFile.set(`../${name}.schema.json`, { name: requestSchemaName(name), schema });
  }
  const out: Record<string, unknown> = {};
  for (const { name, schema } of byFile.values()) {
    const { $schema: _s, $id: _i, ...rest } = schema;
    out[name] = rewriteRefs(rest, (file) => {
      const target = byFile.get(file);
      if (!target) throw new Error(`schemas/api: ${name} refers to ${file}, which is not there`);
      return `#/components/schemas/${target.name}`;
    });
  }
  return out;
}

function rewriteRefs(v: unknown, to: (file: string) => string): unknown {
  if (Array.isArray(v)) return v.map((x) => rewriteRefs(x, to));
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      k === '$ref' && typeof x === 'string' && x.endsWith('.schema.json') ? to(x) : rewriteRefs(x, to),
    ]),
  );
}
