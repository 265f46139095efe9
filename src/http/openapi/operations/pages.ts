// Pages and the console: discovery documents (src/discovery/), the console's files and its API (src/console/), unread counts.

import { HTML, ok, type OperationDoc, ref } from '../op-doc.js';

/** Per-route notes by "METHOD /path" (the router's spelling). */
export const PAGE_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
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
      'For a signed-in person (401 for an anonymous visitor): the markers follow the credential (`token:<id>`) across browsers. The first call starts them: older messages count as read. An operator who sees the whole network gets every room and DM; anyone else gets the rooms its agents are in, their DMs and the conversations it holds a marker in (a public room it neither joined nor read is not listed).',
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
};
