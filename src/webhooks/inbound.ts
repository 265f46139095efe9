// POST /v1/hooks/{id} (#28 part 4): a tool outside the network (a CI job, a monitor) posts a
// message into the hook's room as the hook's sender. The caller proves it knows the hook's secret
// by `Authorization: Bearer <secret>` or by a Standard Webhooks signature made with it; the message
// then goes through the same send as any other (validation, write policy, limits, loop guard).

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../auth/principal.js';
import type { InboundHookConfig } from '../config/webhooks.js';
import { AppError, badRequest } from '../errors.js';
import type { SendRequest } from '../protocol/types.js';
import { check } from '../schemas.js';
import { webhookOf } from './signing.js';

/** Whether a request carries the hook's secret: as its bearer token, or as a valid Standard Webhooks signature of `raw`. */
export function hookSecretOk(hook: InboundHookConfig, req: IncomingMessage, raw: Buffer): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
  if (m) return sameSecret(m[1]!, hook.secret);
  if (req.headers['webhook-signature'] === undefined) return false;
  const headers: Record<string, string> = {};
  for (const k of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const v = req.headers[k];
    if (typeof v === 'string') headers[k] = v;
  }
  try {
    webhookOf(hook.secret).verify(raw, headers, { jsonParse: false });
    return true;
  } catch {
    return false;
  }
}

function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The principal a hook sends with: it may speak only as its sender, and write. */
export function hookPrincipal(hook: InboundHookConfig): Principal {
  return {
    kind: 'static',
    tokenId: `hook:${hook.id}`,
    scopes: new Set(['write']),
    agents: new Set([hook.sender]),
    credentialKey: `hook:${hook.id}`,
  };
}

/** The send a hook's body asks for: `{text}` (Slack-style) or `{parts}`, with an optional message `id` for retries. */
export function hookSend(hook: InboundHookConfig, body: unknown): SendRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body: must be a JSON object with text or parts');
  const b = body as Record<string, unknown>;
  if (b.text !== undefined && b.parts !== undefined) throw badRequest('body: give text or parts, not both');
  let parts: unknown;
  if (b.text !== undefined) {
    if (typeof b.text !== 'string' || b.text === '') throw badRequest('body.text: must be a non-empty string');
    parts = [{ kind: 'text', text: b.text }];
  } else if (b.parts !== undefined) parts = b.parts;
  else throw badRequest('body: needs text (a string) or parts (as in POST /v1/messages)');
  const req = {
    ...(b.id !== undefined ? { id: b.id } : {}),
    target: { kind: 'room', room_id: hook.room },
    from: { type: 'agent', id: hook.sender, ...(hook.sender_name ? { name: hook.sender_name } : {}) },
    parts,
  };
  const problem = check('send-message', req, 'body');
  if (problem) throw new AppError('bad_request', problem);
  return req as SendRequest;
}
