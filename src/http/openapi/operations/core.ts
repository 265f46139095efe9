// The spec's API: health, rooms, history, DMs, artifacts, messages, agents, apply, search, the event stream, /v1/mcp, pairings, metrics.

import { SEARCH_MAX_LIMIT } from '../../../network/search.js';
import { ID, listOf, ok, type OperationDoc, READ_AS, WINDOW } from '../op-doc.js';

/** Per-route notes by "METHOD /path" (the router's spelling). */
export const CORE_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
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
      properties: {
        status: { const: 'ready' },
        store: {
          type: 'object',
          description:
            "The embedded engine's mode (sqlite only), and `redaction_scrub`: `pending` while a redaction's scrub (the search index rebuilt, then a checkpoint) is under way, `done` after.",
        },
      },
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
    summary: 'What this network is: ID, name, version, protocols, capabilities and warnings.',
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
      { name: 'room_id', description: 'Only this room.', schema: ID },
      { name: 'thread_id', description: 'Only this thread.', schema: ID },
      { name: 'dm_id', description: 'Only this direct conversation.', schema: ID },
    ],
    responses: ok(listOf('artifacts', 'Artifact')),
    errors: [422],
  },
  'POST /v1/messages': {
    tag: 'messages',
    summary: 'Send a message to a room, a thread or a direct conversation.',
    description:
      'Sending again with the same `id` stores nothing new (409 when another sender used that id). 429 `loop_detected` when agents answered each other too often in a row.',
    responses: ok('SendResponse'),
    errors: [409],
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
    description:
      '409 `conflict` when another credential holds the id; 409 `agent_reserved` when a self-registration claims an id svc.yaml or an operator named (a room member, an inbound hook sender) that no agent holds yet.',
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
      { name: 'room_id', description: 'Only this room.', schema: ID },
      { name: 'thread_id', description: 'Only this thread.', schema: ID },
      { name: 'dm_id', description: 'Only this direct conversation.', schema: ID },
      { name: 'from', description: 'Only this sender: a local ID, `<network_id>:<id>` or an agent FQID.', schema: ID },
      {
        name: 'limit',
        description: `Hits per page, 1 to ${SEARCH_MAX_LIMIT} (larger values are capped); default 20.`,
        schema: { type: 'integer', minimum: 1 },
      },
      { name: 'before', description: "Cursor: the previous page's `page.next_before` (search pages go back in time only).", schema: ID },
    ],
    responses: ok(listOf('messages', 'SearchHit')),
    errors: [422],
  },
  'GET /v1/events/stream': {
    tag: 'live',
    summary: 'The live event stream (Server-Sent Events); each `data:` line is one Event.',
    query: [
      { name: 'room_id', description: 'Only events of this room.', schema: ID },
      {
        name: 'type',
        description: 'Only these event types (repeat the parameter or separate with commas).',
        repeat: true,
        schema: { type: 'string' },
      },
      { name: 'last_event_id', description: 'Resume after this event (the same as the Last-Event-ID header).', schema: ID },
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
      'Both eras are answered: a 2025 client opens with `initialize` (2025-06-18, 2025-11-25); a 2026-07-28 request carries the per-request `_meta` envelope ' +
      '(no initialize, no Mcp-Session-Id; `server/discover`, `Mcp-Method`/`Mcp-Name` headers, `subscriptions/listen` as an SSE stream for inbox updates). ' +
      'See docs/agents.md, "Connect a remote agent".',
    headers: [
      { name: 'X-Svc-Agent', description: 'The agent a static token acts as (agent tokens act as their own agent).' },
      {
        name: 'Mcp-Protocol-Version',
        description: 'The negotiated MCP protocol version, on every request after initialize (2026-07-28: on every request).',
      },
      { name: 'Mcp-Method', description: '2026-07-28: the JSON-RPC method of the body.' },
      { name: 'Mcp-Name', description: '2026-07-28: the tool, resource or prompt the body names, when it names one.' },
    ],
    responses: {
      200: {
        description: 'An SSE stream of JSON-RPC messages: the response, after any progress notifications.',
        media: 'text/event-stream',
      },
      202: { description: 'Notifications or responses only: accepted, no body.' },
      406: { description: 'The Accept header lacks application/json or text/event-stream (a JSON-RPC error).', json: 'McpMessage' },
      415: { description: 'The body is not application/json (a JSON-RPC error).', json: 'McpMessage' },
      400: {
        description:
          'A body that is not JSON (`-32700` Parse error) or that the server will not take (`-32600`: nested deeper than 128 levels, a NUL character), as a JSON-RPC error with id null.',
        json: 'McpMessage',
      },
      408: {
        description: 'The body did not arrive in time (`server.limits.body_seconds`), a JSON-RPC error (`-32000`).',
        json: 'McpMessage',
      },
      413: { description: 'The body is over 1 MiB, a JSON-RPC error (`-32000`).', json: 'McpMessage' },
    },
  },
  'GET /v1/mcp/server-card': {
    tag: 'mcp',
    summary:
      'The MCP Server Card of /v1/mcp (the Server Card extension, SEP-2127): name, version, icons, the endpoint and the protocol revisions it answers.',
    description: 'Public, with CORS open and `Cache-Control: public, max-age=3600`; media type `application/mcp-server-card+json`.',
    responses: { 200: { description: 'The Server Card.', media: 'application/mcp-server-card+json' } },
  },
  'GET /.well-known/mcp/catalog.json': {
    tag: 'mcp',
    summary: 'The MCP Catalog of this host: one entry, pointing at the Server Card of /v1/mcp.',
    responses: ok({
      type: 'object',
      required: ['specVersion', 'entries'],
      properties: { specVersion: { type: 'string' }, entries: { type: 'array' } },
    }),
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
};
