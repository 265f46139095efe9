// The shape of a route's OpenAPI notes and the pieces the notes share (operations/*.ts).

import { MAX_LIMIT } from '../../protocol/pagination.js';

/** A JSON Schema, or the name of one in components.schemas. */
export type SchemaDoc = string | Record<string, unknown>;

export interface QueryParam {
  name: string;
  description: string;
  required?: boolean;
  schema?: Record<string, unknown>;
  /** The parameter may repeat (`?type=a&type=b`). */
  repeat?: boolean;
}

export interface ResponseDoc {
  description: string;
  /** The JSON body's schema. */
  json?: SchemaDoc;
  /** A non-JSON body's media type (HTML, Markdown, SSE, metrics text). */
  media?: string;
  /** Response headers worth naming (Location, ETag). */
  headers?: string[];
}

export interface OperationDoc {
  summary: string;
  description?: string;
  tag: string;
  query?: QueryParam[];
  /** Request headers worth naming (Last-Event-ID, If-None-Match). */
  headers?: { name: string; description: string }[];
  /** A body that is not one schema's JSON (an upload): its schema by media type. */
  request?: Record<string, Record<string, unknown>>;
  /** Successful and page answers; the error answers are added from the route (see document.ts). */
  responses: Record<number, ResponseDoc>;
  /** Error statuses beyond the ones every route of its kind has (409, 422, 502...). */
  errors?: number[];
}

/** An id in a path or query. */
export const ID = { type: 'string', minLength: 1, maxLength: 256 };

/** `limit`, `before`, `after` of every list (src/http/query.ts). */
export const WINDOW: QueryParam[] = [
  {
    name: 'limit',
    description: `Items per page, 1 to ${MAX_LIMIT} (larger values are capped); default 100.`,
    schema: { type: 'integer', minimum: 1 },
  },
  { name: 'before', description: "Cursor: items older than this ID (the previous page's `page.next_before`).", schema: ID },
  { name: 'after', description: 'Cursor: items newer than this id.', schema: ID },
];

/** A page envelope: `{ <key>: item[], page }`. */
export function listOf(key: string, item: SchemaDoc): Record<string, unknown> {
  return {
    type: 'object',
    required: [key, 'page'],
    properties: { [key]: { type: 'array', items: ref(item) }, page: ref('Page') },
  };
}

/** A component name as a $ref; an inline schema as is. */
export function ref(s: SchemaDoc): Record<string, unknown> {
  return typeof s === 'string' ? { $ref: `#/components/schemas/${s}` } : s;
}

export const HTML = 'text/html; charset=utf-8';
export const ok = (json: SchemaDoc, description = 'OK'): Record<number, ResponseDoc> => ({ 200: { description, json } });

/** `as` of a history read: whom the read counts for in receipts (docs/receipts.md). */
export const READ_AS: QueryParam = {
  name: 'as',
  description:
    'Whom this read counts for in receipts: an agent ID the credential may act as, or `human:<id>` for a credential that may send as a person. An agent token always reads as its agent.',
  schema: ID,
};

/**
 * Routes with their notes from `docs` (keyed "METHOD /path", the router's spelling), for a
 * feature that keeps its routes' notes with it (`Route.doc`). A route without an entry is left
 * as it is: document.ts reports it.
 */
export function documented<R extends { method: string; path: string; doc?: OperationDoc }>(
  routes: readonly R[],
  docs: Readonly<Record<string, OperationDoc>>,
): R[] {
  return routes.map((r) => {
    const doc = docs[`${r.method} ${r.path}`];
    return doc ? { ...r, doc } : r;
  });
}
