// The webhooks and inbound hooks `svc apply` carries (#28): their part of the request, and the dry
// run's plan of them from the server's listing (GET /v1/webhooks, admin only). The listing shows no
// secret and not every setting, so a hook that looks the same is "cannot tell": the real run says
// whether it changed. The webhooks feature's own, run by the CLI (apply-section.ts declares it): it
// stands on the client and the wire types alone, so the command loads nothing of the server.

import { ClientError } from '../client/errors.js';
import type { SvcClient } from '../client/svc-client.js';
import type { ApplySectionWork } from '../feature-cli.js';
import type { ApplyRequest } from '../protocol/types.js';
import type { WebhookList } from '../protocol/webhooks.js';

/** `webhooks:` and `inbound_hooks:` in `svc apply`. Their secrets were read from `secret_env` here: the server needs them to sign and to check. */
export const hooksApply: ApplySectionWork = {
  request: (config) => ({
    webhooks: config.webhooks.map((w) => ({
      id: w.id,
      url: w.url,
      events: w.events,
      ...(w.rooms ? { rooms: w.rooms } : {}),
      secret: w.secret,
      secret_env: w.secret_env,
      allow_private_network: w.allow_private_network,
      timeout_ms: w.timeout_ms,
      retry: w.retry,
    })),
    inbound_hooks: config.inbound_hooks.map((h) => ({
      id: h.id,
      room: h.room,
      sender: h.sender,
      ...(h.sender_name !== undefined ? { sender_name: h.sender_name } : {}),
      secret: h.secret,
      secret_env: h.secret_env,
    })),
  }),
  plan: async (client, req) => {
    const hooks = await listedHooks(client, req);
    return planHooks(req, hooks.list, hooks.why);
  },
};

/** A planned change of one hook (svc apply's planned change, for these two kinds). */
export interface HookChange {
  kind: 'webhook' | 'inbound_hook';
  id: string;
  action: 'created' | 'updated' | 'unchanged' | 'unknown';
  details?: string[];
}

/** What applying the hooks of `req` would change, as far as `list` (undefined: not readable, `why`) shows. */
export function planHooks(req: ApplyRequest, list: WebhookList | undefined, why = 'only an admin can list webhooks'): HookChange[] {
  const out: HookChange[] = [];
  const plan = (kind: 'webhook' | 'inbound_hook', id: string, found: { source: string } | undefined, differs: string[]) => {
    if (!list) out.push({ kind, id, action: 'unknown', details: [why] });
    else if (!found) out.push({ kind, id, action: 'created' });
    else if (found.source === 'config')
      out.push({ kind, id, action: 'unchanged', details: ["declared in the server's svc.yaml, which wins: refused unless the same"] });
    else if (differs.length > 0) out.push({ kind, id, action: 'updated', details: differs });
    else out.push({ kind, id, action: 'unknown', details: ['applied before; its secret and retry settings are not shown'] });
  };
  for (const w of req.webhooks ?? []) {
    const cur = list?.webhooks.find((x) => x.id === w.id);
    const differs: string[] = [];
    if (cur && cur.url !== w.url) differs.push(`url ${cur.url} -> ${w.url}`);
    if (cur && JSON.stringify(cur.events) !== JSON.stringify(w.events ?? ['message.created'])) differs.push('events');
    if (cur && JSON.stringify(cur.rooms ?? null) !== JSON.stringify(w.rooms ?? null)) differs.push('rooms');
    plan('webhook', w.id, cur, differs);
  }
  for (const h of req.inbound_hooks ?? []) {
    const cur = list?.inbound_hooks.find((x) => x.id === h.id);
    const differs: string[] = [];
    if (cur && cur.room !== h.room) differs.push(`room ${cur.room} -> ${h.room}`);
    if (cur && cur.sender !== h.sender) differs.push(`sender ${cur.sender} -> ${h.sender}`);
    plan('inbound_hook', h.id, cur, differs);
  }
  return out;
}

/** The server's hooks, or undefined with why when this caller may not list them. */
export async function listedHooks(client: SvcClient, req: ApplyRequest): Promise<{ list?: WebhookList; why?: string }> {
  if ((req.webhooks ?? []).length + (req.inbound_hooks ?? []).length === 0) return {};
  try {
    return { list: await client.listWebhooks() };
  } catch (err) {
    if (err instanceof ClientError && (err.status === 401 || err.status === 403))
      return { why: `the server answered ${err.status}: only an admin can list webhooks` };
    throw err;
  }
}
