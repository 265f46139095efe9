// What the route table does not say about each route, keyed "METHOD /path" as the router spells
// the path: a summary, the query parameters, the answers by status. Kept apart from the route files
// so they stay about handling; document.ts joins the two and reports a route without an entry (and
// an entry without a route), which fails the OpenAPI test. A feature's route may carry its own
// notes instead (`Route.doc`, joined with `documented`): they come and go with the feature.

import type { OperationDoc } from './op-doc.js';
import { CORE_OPERATIONS } from './operations/core.js';
import { OAUTH_OPERATIONS } from './operations/oauth.js';
import { PAGE_OPERATIONS } from './operations/pages.js';

export { ref, type OperationDoc, type ResponseDoc, type SchemaDoc } from './op-doc.js';

/** Per-route notes by "METHOD /path" (the router's spelling); one entry per route, no more. */
export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  ...CORE_OPERATIONS,
  ...OAUTH_OPERATIONS,
  ...PAGE_OPERATIONS,
};
