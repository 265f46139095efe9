// What the route table does not say about each route, keyed "METHOD /path" as the router spells
// the path: a summary, the query parameters, the answers by status. Kept apart from the route files
// so they stay about handling; document.ts joins the two and reports a route without an entry (and
// an entry without a route), which fails the OpenAPI test.

import { MAX_LIMIT } from '../../protocol/pagination.js';
import { SEARCH_MAX_LIMIT } from '../../network/search.js';

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
  /** Successful and page answers; the error answers are added from the route (see document.ts). */
  responses: Record<number, ResponseDoc>;
  /** Error statuses beyond the ones every route of its kind has (409, 422, 502...). */
  errors?: number[];
}

const id = { type: 'string', minLength: 1, maxLength: 256 };

/** `limit`, `before`, `after` of every list (src/http/query.ts). */
const WINDOW: QueryParam[] = [
  {
    name: 'limit',
    description: `Items per page, 1 to ${MAX_LIMIT} (larger values are capped); default 100.`,
    schema: { type: 'integer', minimum: 1 },
  },
  { name: 'before', description: "Cursor: items older than this id (the previous page's `page.next_before`).", schema: id },
  { name: 'after', description: 'Cursor: items newer than this id.', schema: id },
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

const HTML = 'text/html; charset=utf-8';
const ok = (json: SchemaDoc, description = 'OK'): Record<number, ResponseDoc> => ({ 200: { description, json } });

/** `as` of a history read: whom the read counts for in receipts (docs/receipts.md). */
const READ_AS: QueryParam = {
  name: 'as',
  description:
    'Whom this read counts for in receipts: an agent id the credential may act as, or `human:<id>` for a credential that may send as a person. An agent token always reads as its agent.',
  schema: id,
};

/** Per-route notes by "METHOD /path" (the router's spelling); one entry per route, no more. */
export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /healthz': {
    tag: 'health',
    summary: 'Liveness: the process answers.',
    responses: ok({ type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }),
  },
  'GET /readyz': {
    tag: 'health',
    summary: 'Readiness: the store answers (503 when it does not).',
    responses: ok({
      type: 'object',
      required: ['status'],
      properties: { status: { const: 'ready' }, store: { type: 'object', description: "The embedded engine's mode (sqlite only)." } },
    }),
    errors: [503],
  },
  'GET /v1/openapi.json': {
    tag: 'meta',
    summary: 'This document (OpenAPI 3.1). Public; cache it with its ETag.',
    headers: [{ name: 'If-None-Match', description: 'The ETag of a copy you hold: 304 when it is current.' }],
    responses: {
      200: { description: 'The OpenAPI document.', json: { type: 'object', required: ['openapi', 'paths'] }, headers: ['ETag'] },
      304: { description: 'Your copy is current.' },
    },
  },
  'GET /v1/network': {
    tag: 'network',
    summary: 'What this network is: id, name, version, protocols, capabilities and warnings.',
    responses: ok('NetworkDocument'),
  },
  'GET /v1/rooms': {
    tag: 'rooms',
    summary: 'Rooms the caller may see, a page at a time.',
    query: WINDOW,
    responses: ok(listOf('rooms', 'Room')),
    errors: [422],
  },
  'POST /v1/rooms': { tag: 'rooms', summary: 'Create a room.', responses: ok('Room'), errors: [409] },
  'GET /v1/rooms/:room_id': { tag: 'rooms', summary: 'One room.', responses: ok('Room') },
  'DELETE /v1/rooms/:room_id': { tag: 'rooms', summary: 'Remove a room (soft: its history stays stored).', responses: ok('Removed') },
  'PATCH /v1/rooms/:room_id/members': { tag: 'rooms', summary: 'Add and remove members of a room.', responses: ok('Room') },
  'GET /v1/rooms/:room_id/messages': {
    tag: 'history',
    summary: "A room's messages, newest page first.",
    query: [...WINDOW, READ_AS],
    responses: ok(listOf('messages', 'Message')),
    errors: [422],
  },
  'GET /v1/rooms/:room_id/threads': {
    tag: 'history',
    summary: "A room's threads.",
    query: WINDOW,
    responses: ok(listOf('threads', 'Thread')),
    errors: [422],
  },
  'GET /v1/threads/:thread_id': { tag: 'history', summary: 'One thread.', responses: ok('Thread') },
  'GET /v1/threads/:thread_id/messages': {
    tag: 'history',
    summary: "A thread's messages.",
    query: [...WINDOW, READ_AS],
    responses: ok(listOf('messages', 'Message')),
    errors: [422],
  },
  'GET /v1/dms': {
    tag: 'dms',
    summary: 'Direct conversations the caller may read (403 when direct messages are off).',
    query: WINDOW,
    responses: ok(listOf('dms', 'DirectConversation')),
    errors: [422],
  },
  'GET /v1/dms/:dm_id': { tag: 'dms', summary: 'One direct conversation.', responses: ok('DirectConversation') },
  'GET /v1/dms/:dm_id/messages': {
    tag: 'dms',
    summary: "A direct conversation's messages.",
    query: [...WINDOW, READ_AS],
    responses: ok(listOf('messages', 'Message')),
    errors: [422],
  },
  'GET /v1/artifacts': {
    tag: 'history',
    summary: 'Non-text parts of messages (files, images, URLs), optionally of one conversation.',
    query: [
      ...WINDOW,
      { name: 'room_id', description: 'Only this room.', schema: id },
      { name: 'thread_id', description: 'Only this thread.', schema: id },
      { name: 'dm_id', description: 'Only this direct conversation.', schema: id },
    ],
    responses: ok(listOf('artifacts', 'Artifact')),
    errors: [422],
  },
  'GET /v1/messages/:message_id/receipts': {
    tag: 'messages',
    summary: "A message's receipts: delivered and read, per reader.",
    description:
      'For the sender of the message (a credential that may act as it) and admins; 404 when the caller may not see the message, 403 when it may but is neither. See docs/receipts.md.',
    responses: ok('Receipts'),
  },
  'POST /v1/messages/:message_id/read': {
    tag: 'messages',
    summary: 'Marks one message read by the caller.',
    description: 'An agent token marks for its agent; another credential names whom with `as` (403 when it reads as nobody).',
    query: [READ_AS],
    responses: ok({
      type: 'object',
      required: ['message_id', 'reader'],
      properties: { message_id: { type: 'string' }, reader: { type: 'object' } },
    }),
  },
  'POST /v1/messages': {
    tag: 'messages',
    summary: 'Send a message to a room, a thread or a direct conversation.',
    description:
      'Sending again with the same `id` stores nothing new (409 when another sender used that id). 429 `loop_detected` when agents answered each other too often in a row.',
    responses: ok('SendResponse'),
    errors: [409],
  },
  'PUT /v1/messages/:message_id/reactions/:emoji': {
    tag: 'messages',
    summary: 'React to a message with one emoji (a Unicode emoji or a `:name:` shortcode, URL-encoded).',
    description:
      'Optional body `{"from": {"type", "id", "network_id"?}}`: who reacts (an agent token without it reacts as its own agent). The same rules as sending into the message\'s conversation. Idempotent: a second PUT answers `changed: false`. 409 when the message already carries 20 distinct emoji.',
    responses: ok('ReactionResponse'),
    errors: [409],
  },
  'DELETE /v1/messages/:message_id/reactions/:emoji': {
    tag: 'messages',
    summary: "Remove one's reaction to a message; 404 when it is not there.",
    description: 'Optional body `{"from": ...}` as for PUT.',
    responses: ok('ReactionResponse'),
  },
  'GET /v1/messages/:message_id/reactions': {
    tag: 'history',
    summary: 'The reactions to one message the caller may read.',
    responses: ok({
      type: 'object',
      required: ['message_id', 'reactions'],
      properties: { message_id: { type: 'string' }, reactions: { type: 'array', items: ref('ReactionSummary') } },
    }),
  },
  'GET /v1/agents': {
    tag: 'agents',
    summary: 'Agents the caller may see.',
    query: WINDOW,
    responses: ok(listOf('agents', 'Agent')),
    errors: [422],
  },
  'POST /v1/agents/register': {
    tag: 'agents',
    summary: 'Register an agent; the answer carries its token once, when one was minted.',
    responses: ok('AgentRegistration'),
    errors: [409],
  },
  'GET /v1/agents/:agent_id': { tag: 'agents', summary: 'One agent.', responses: ok('Agent') },
  'DELETE /v1/agents/:agent_id': { tag: 'agents', summary: 'Remove an agent (soft) and revoke its token.', responses: ok('Removed') },
  'POST /v1/apply': {
    tag: 'network',
    summary: 'Declare agents and rooms at once (what `svc apply` sends).',
    responses: ok('ApplyResponse'),
    errors: [409, 422],
  },
  'GET /v1/search': {
    tag: 'history',
    summary: 'Full-text search over the messages the caller may read, newest first.',
    query: [
      {
        name: 'q',
        description: 'The words to search for (every word must match; the last one as a prefix).',
        required: true,
        schema: { type: 'string', minLength: 1 },
      },
      { name: 'room_id', description: 'Only this room.', schema: id },
      { name: 'thread_id', description: 'Only this thread.', schema: id },
      { name: 'dm_id', description: 'Only this direct conversation.', schema: id },
      { name: 'from', description: 'Only this sender: a local id, `<network_id>:<id>` or an agent FQID.', schema: id },
      {
        name: 'limit',
        description: `Hits per page, 1 to ${SEARCH_MAX_LIMIT} (larger values are capped); default 20.`,
        schema: { type: 'integer', minimum: 1 },
      },
      { name: 'before', description: "Cursor: the previous page's `page.next_before` (search pages go back in time only).", schema: id },
    ],
    responses: ok(listOf('messages', 'SearchHit')),
    errors: [422],
  },
  'GET /v1/events/stream': {
    tag: 'live',
    summary: 'The live event stream (Server-Sent Events); each `data:` line is one Event.',
    query: [
      { name: 'room_id', description: 'Only events of this room.', schema: id },
      {
        name: 'type',
        description: 'Only these event types (repeat the parameter or separate with commas).',
        repeat: true,
        schema: { type: 'string' },
      },
      { name: 'last_event_id', description: 'Resume after this event (the same as the Last-Event-ID header).', schema: id },
    ],
    headers: [{ name: 'Last-Event-ID', description: 'Resume after this event: the events since are replayed first.' }],
    responses: { 200: { description: 'An SSE stream of events (schema: Event).', media: 'text/event-stream' } },
  },
  'POST /v1/mcp': {
    tag: 'mcp',
    summary: 'MCP over Streamable HTTP (stateless): the tools and inbox resource of `svc mcp`, acting as the agent the bearer token names.',
    description:
      'The body is one JSON-RPC message or a batch (at most 1 MiB); send `Accept: application/json, text/event-stream`. ' +
      'Requests are answered with an SSE stream carrying the JSON-RPC response (and progress notifications while wait_for_messages waits); ' +
      'notifications alone with 202. An agent token acts as its agent; a static token names one with the `X-Svc-Agent` header ' +
      'or by an `agents` list of exactly one agent (otherwise 403). There is no session and no GET stream (GET and DELETE answer 405). ' +
      'See docs/agents.md, "Connect a remote agent".',
    headers: [
      { name: 'X-Svc-Agent', description: 'The agent a static token acts as (agent tokens act as their own agent).' },
      { name: 'Mcp-Protocol-Version', description: 'The negotiated MCP protocol version, on every request after initialize.' },
    ],
    responses: {
      200: {
        description: 'An SSE stream of JSON-RPC messages: the response, after any progress notifications.',
        media: 'text/event-stream',
      },
      202: { description: 'Notifications or responses only: accepted, no body.' },
      406: { description: 'The Accept header lacks application/json or text/event-stream (a JSON-RPC error).', json: 'McpMessage' },
      415: { description: 'The body is not application/json (a JSON-RPC error).', json: 'McpMessage' },
    },
    errors: [400, 413],
  },
  'GET /v1/pairings': {
    tag: 'pairings',
    summary: "This network's pairings with other networks.",
    query: WINDOW,
    responses: ok(listOf('pairings', 'Pairing')),
    errors: [422],
  },
  'GET /v1/pairings/:pairing_id/network': {
    tag: 'pairings',
    summary: "The paired network's network document, read through the pairing.",
    responses: ok('NetworkDocument'),
    errors: [502],
  },
  'GET /v1/pairings/:pairing_id/rooms': {
    tag: 'pairings',
    summary: "The paired network's rooms the caller may see.",
    query: WINDOW,
    responses: ok(listOf('rooms', 'Room')),
    errors: [422, 502],
  },
  'GET /v1/pairings/:pairing_id/agents': {
    tag: 'pairings',
    summary: "The paired network's agents the caller may see.",
    query: WINDOW,
    responses: ok(listOf('agents', 'Agent')),
    errors: [422, 502],
  },
  'GET /metrics': {
    tag: 'operations',
    summary: 'Prometheus metrics (text exposition format).',
    responses: { 200: { description: 'Metrics.', media: 'text/plain; version=0.0.4; charset=utf-8' } },
  },
  'GET /.well-known/oauth-protected-resource': {
    tag: 'oauth',
    summary: 'Protected-resource metadata of /v1/mcp (RFC 9728).',
    responses: ok('ProtectedResourceMetadata'),
  },
  'GET /.well-known/oauth-protected-resource/v1/mcp': {
    tag: 'oauth',
    summary: 'Protected-resource metadata of /v1/mcp at its path-suffixed address (RFC 9728 section 3.1).',
    responses: ok('ProtectedResourceMetadata'),
  },
  'GET /.well-known/oauth-authorization-server/oauth': {
    tag: 'oauth',
    summary: 'Authorization-server metadata of the /oauth issuer (RFC 8414).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/.well-known/openid-configuration': {
    tag: 'oauth',
    summary: 'The same metadata at the OpenID discovery address.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/auth': {
    tag: 'oauth',
    summary: 'Authorization endpoint (code flow, PKCE S256 required); redirects to the console consent or back to the client.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/auth': {
    tag: 'oauth',
    summary: 'Authorization endpoint, form-encoded.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/auth/:uid': {
    tag: 'oauth',
    summary: 'Resumes an authorization after the console consent.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/token': {
    tag: 'oauth',
    summary: 'Token endpoint: authorization code and refresh token grants (form-encoded).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/token/revocation': {
    tag: 'oauth',
    summary: 'Token revocation (RFC 7009).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'POST /oauth/reg': {
    tag: 'oauth',
    summary: 'Dynamic client registration (RFC 7591).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /oauth/reg/:client': {
    tag: 'oauth',
    summary: 'Read a registered client (registration access token).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'PUT /oauth/reg/:client': {
    tag: 'oauth',
    summary: 'Update a registered client (registration access token).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'DELETE /oauth/reg/:client': {
    tag: 'oauth',
    summary: 'Delete a registered client (registration access token).',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /v1/oauth/grants': {
    tag: 'oauth',
    summary: 'The OAuth grants people approved: client, the agent it acts as, scopes, created and expiry (admin).',
    responses: ok({ type: 'object', required: ['grants'], properties: { grants: { type: 'array', items: ref('OAuthGrant') } } }),
  },
  'DELETE /v1/oauth/grants/:grant_id': {
    tag: 'oauth',
    summary: 'Revoke a grant: it and every token and code of it are deleted; the client must ask again (admin).',
    responses: ok({ type: 'object', required: ['revoked', 'id'], properties: { revoked: { const: true }, id: { type: 'string' } } }),
  },
  'GET /oauth/jwks': {
    tag: 'oauth',
    summary: 'Public signing keys of the provider.',
    description: 'Served by the OAuth provider: answers and errors follow the OAuth RFCs, not the error shape of this API.',
    responses: { 200: { description: 'OAuth answer.', json: { type: 'object' } } },
  },
  'GET /console/oauth/:uid': {
    tag: 'oauth',
    summary: 'The consent page of an authorization request: pick the agent the client acts as, approve or deny (HTML).',
    description: 'Needs a console session in this browser; without one it explains how to sign in and come back.',
    responses: {
      200: { description: 'The consent form.', media: HTML },
      400: { description: 'The request expired or belongs to another browser.', media: HTML },
      401: { description: 'Not signed in to the console.', media: HTML },
      403: { description: 'The session may not let a client act as any agent.', media: HTML },
    },
  },
  'POST /console/oauth/:uid': {
    tag: 'oauth',
    summary: 'Answers the consent (form-encoded: decision, agent, new_name); redirects the browser back to the client.',
    description: 'Same-origin only (the console CSRF rule). A denial ends the request with access_denied.',
    responses: { 303: { description: 'On to the client (through the provider).' } },
  },
  'GET /install.md': {
    tag: 'discovery',
    summary: 'How to join this network, for an agent or a person (Markdown, rendered for the caller).',
    description: 'A direct loopback caller may read it without a token.',
    responses: { 200: { description: 'Markdown.', media: 'text/markdown; charset=utf-8' } },
  },
  'GET /skill.md': {
    tag: 'discovery',
    summary: 'The agent skill document of this network (Markdown).',
    responses: { 200: { description: 'Markdown.', media: 'text/markdown; charset=utf-8' } },
  },
  'GET /llms.txt': {
    tag: 'discovery',
    summary: 'An index of this network for language models (plain text).',
    responses: { 200: { description: 'Plain text.', media: 'text/plain; charset=utf-8' } },
  },
  'GET /': {
    tag: 'console',
    summary: 'Redirects to the console.',
    responses: { 302: { description: 'To /console/.', media: HTML, headers: ['Location'] } },
  },
  'GET /console': {
    tag: 'console',
    summary: 'Redirects to /console/ (keeping the query).',
    responses: { 308: { description: 'To /console/.', media: HTML, headers: ['Location'] } },
  },
  'GET /console/': {
    tag: 'console',
    summary: 'The console app, or its sign-in page.',
    query: [
      {
        name: 'access_token',
        description: 'Sign in with this token: a session cookie is set and the token is dropped from the address.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: { description: 'The console app.', media: HTML },
      303: { description: 'Signed in; to /console/.', media: HTML, headers: ['Location'] },
      401: { description: "The sign-in page (or: the link's token is not valid).", media: HTML },
      403: { description: 'The token may not use the console.', media: HTML },
    },
  },
  'GET /console/:file': {
    tag: 'console',
    summary: "One of the console's static files.",
    headers: [{ name: 'If-None-Match', description: 'The ETag of a copy you hold.' }],
    responses: {
      200: { description: 'The file.', media: 'application/octet-stream', headers: ['ETag'] },
      304: { description: 'Your copy is current.' },
    },
  },
  'GET /console/sign-in': {
    tag: 'console',
    summary: 'Use a one-time sign-in link: sets the session cookie.',
    query: [
      { name: 'code', description: 'The code of a link from POST /console/api/sign-in-codes.', required: true, schema: { type: 'string' } },
    ],
    responses: {
      303: { description: 'Signed in; to /console/.', media: HTML, headers: ['Location'] },
      401: { description: 'The link was used, expired or never issued.', media: HTML },
    },
  },
  'POST /console/api/sign-in-codes': {
    tag: 'console',
    summary: 'A one-time console sign-in link for the calling admin token (what `svc console` asks for).',
    responses: {
      201: {
        description: 'The link.',
        json: {
          type: 'object',
          required: ['url', 'expires_at'],
          properties: { url: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } },
        },
      },
    },
  },
  'GET /console/api/session': {
    tag: 'console',
    summary: "The console's view of its caller: scopes, whether it may send as a human.",
    responses: ok({
      type: 'object',
      required: ['signed_in', 'principal', 'scopes', 'can_send_human', 'human', 'protected'],
      properties: {
        signed_in: { type: 'boolean' },
        principal: { type: 'string' },
        scopes: { type: 'array', items: { type: 'string' } },
        can_send_human: { type: 'boolean' },
        human: {
          type: 'object',
          required: ['type', 'id'],
          properties: { type: { type: 'string' }, id: { type: 'string' }, name: { type: 'string' } },
        },
        protected: { type: 'boolean' },
      },
    }),
  },
  'GET /console/api/presence': {
    tag: 'console',
    summary: 'Which agents are connected now (none for anonymous readers).',
    responses: ok({
      type: 'object',
      required: ['agents'],
      properties: {
        agents: {
          type: 'array',
          items: {
            type: 'object',
            required: ['agent_id', 'connected'],
            properties: { agent_id: { type: 'string' }, connected: { type: 'boolean' }, since: { type: 'string' } },
          },
        },
      },
    }),
  },
  // The console's unread counts (#29 part 4; src/console/unread.ts).
  'GET /v1/unread': {
    tag: 'console',
    summary: "The caller's unread counts per room and DM, from their read markers in the store.",
    description:
      'For a signed-in person (401 for an anonymous visitor): the markers follow the credential (`token:<id>`) across browsers. The first call starts them: older messages count as read.',
    responses: ok('Unread'),
  },
  'POST /v1/unread': {
    tag: 'console',
    summary: "Moves the caller's read marker of a message's conversation up to that message (never back).",
    responses: ok({
      type: 'object',
      required: ['conversation', 'marker'],
      properties: { conversation: { type: 'string' }, marker: ref('ReadMarker') },
    }),
  },
  'POST /console/api/sign-out': {
    tag: 'console',
    summary: 'End the console session named by the cookie (same-origin requests only).',
    responses: ok({ type: 'object', required: ['signed_out'], properties: { signed_out: { const: true } } }),
    errors: [403],
  },
  // Webhooks (#28 parts 3 and 4; src/webhooks/routes.ts).
  'GET /v1/webhooks': {
    tag: 'webhooks',
    summary: 'The outbound webhooks and inbound hooks of svc.yaml, with where each outbox stands (admin).',
    responses: ok({
      type: 'object',
      required: ['webhooks', 'inbound_hooks'],
      properties: { webhooks: { type: 'array', items: ref('Webhook') }, inbound_hooks: { type: 'array', items: ref('InboundHook') } },
    }),
  },
  'GET /v1/webhooks/:webhook_id/deliveries': {
    tag: 'webhooks',
    summary: "A webhook's deliveries, newest first (admin).",
    query: [
      { name: 'status', description: 'Only deliveries in this state.', schema: { enum: ['pending', 'delivered', 'dead'] } },
      { name: 'limit', description: 'At most this many, 1 to 1000; default 100.', schema: { type: 'integer', minimum: 1 } },
    ],
    responses: ok({
      type: 'object',
      required: ['deliveries'],
      properties: { deliveries: { type: 'array', items: ref('WebhookDelivery') } },
    }),
    errors: [422],
  },
  'POST /v1/webhooks/:webhook_id/retry': {
    tag: 'webhooks',
    summary: 'Queue dead-lettered deliveries again, with a new retry window (admin).',
    query: [{ name: 'delivery_id', description: 'Only this delivery (it must be dead); default: every dead one.', schema: id }],
    responses: ok({ type: 'object', required: ['retried'], properties: { retried: { type: 'array', items: { type: 'string' } } } }),
    errors: [409],
  },
  'POST /v1/webhooks/:webhook_id/test': {
    tag: 'webhooks',
    summary: 'Queue a `webhook.test` delivery through the outbox (admin).',
    responses: ok({ type: 'object', required: ['delivery'], properties: { delivery: ref('WebhookDelivery') } }, 'Queued.'),
  },
  'POST /v1/hooks/:hook_id': {
    tag: 'webhooks',
    summary: "Post a message into an inbound hook's room as its sender.",
    description:
      "Authenticated by the hook's secret: `Authorization: Bearer <secret>`, or a Standard Webhooks signature " +
      '(`webhook-id`, `webhook-timestamp`, `webhook-signature`) made with it. Body: `{"text": "..."}` or `{"parts": [...]}`, ' +
      'optionally with a message `id` for retries. A wrong secret (or an unknown hook) is 401 and counts toward the ' +
      'failed-authentication limit of the client address.',
    responses: ok('SendResponse', 'Sent.'),
    errors: [400, 403, 404, 409, 429],
  },
};
