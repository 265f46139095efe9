// What people approved for OAuth clients, read from the provider's state in the store: each grant
// with its client, the agent it acts as and its scopes; revoking one deletes it and every token
// and code of it, so the client must ask again (`svc agents grants`, GET/DELETE /v1/oauth/grants).

import type { OAuthGrant } from '../protocol/oauth-grants.js';
import type { KvTable } from '../store/types.js';
import { parseAccountId } from './account.js';
import { kindOf } from './adapter.js';

export type { OAuthGrant };

interface GrantPayload {
  accountId?: string;
  clientId?: string;
  iat?: number;
  exp?: number;
  openid?: { scope?: string };
  resources?: Record<string, string | boolean>;
}

const iso = (epochSeconds: number | undefined): string | undefined =>
  epochSeconds === undefined ? undefined : new Date(epochSeconds * 1000).toISOString();

/** The grant shown for a stored payload, given its client's registered name. */
export function grantOf(id: string, p: GrantPayload, clientName: string | undefined): OAuthGrant {
  const scopes = new Set<string>();
  const add = (s: unknown) => {
    if (typeof s === 'string') for (const x of s.split(' ')) if (x) scopes.add(x);
  };
  add(p.openid?.scope);
  for (const v of Object.values(p.resources ?? {})) add(v);
  const expires = iso(p.exp);
  return {
    id,
    client: { id: p.clientId ?? '', ...(clientName ? { name: clientName } : {}) },
    agent_id: parseAccountId(p.accountId ?? '')?.agentId ?? p.accountId ?? '',
    scopes: [...scopes].sort(),
    created_at: iso(p.iat) ?? new Date(0).toISOString(),
    ...(expires ? { expires_at: expires } : {}),
  };
}

/** Every unexpired grant, oldest first. */
export async function listGrants(kv: KvTable): Promise<OAuthGrant[]> {
  const rows = await kv.list(kindOf('Grant'));
  const names = new Map<string, string | undefined>();
  const out: OAuthGrant[] = [];
  for (const r of rows) {
    const p = JSON.parse(r.value) as GrantPayload;
    const clientId = p.clientId ?? '';
    if (!names.has(clientId)) {
      const c = await kv.get(kindOf('Client'), clientId);
      const name = c ? (JSON.parse(c.value) as { client_name?: unknown }).client_name : undefined;
      names.set(clientId, typeof name === 'string' ? name : undefined);
    }
    out.push(grantOf(r.id, p, names.get(clientId)));
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

/** Deletes a grant and every token and code of it; false when no such grant is stored. */
export async function revokeGrant(kv: KvTable, id: string): Promise<boolean> {
  const found = await kv.get(kindOf('Grant'), id);
  // The tokens first: a grant left without tokens is harmless, tokens without their grant are not used.
  await kv.deleteGrant(id);
  const deleted = await kv.delete(kindOf('Grant'), id);
  return found !== undefined || deleted;
}

/**
 * Revokes every grant given for a registration of `agentId` other than `current` (its actor uid;
 * every grant of the id when the agent is gone), with their codes and tokens; returns how many.
 */
export async function revokeGrantsOf(kv: KvTable, agentId: string, current?: string): Promise<number> {
  let n = 0;
  for (const r of await kv.list(kindOf('Grant'))) {
    const account = parseAccountId((JSON.parse(r.value) as GrantPayload).accountId ?? '');
    if (account?.agentId !== agentId || account.actorUid === current) continue;
    if (await revokeGrant(kv, r.id)) n++;
  }
  return n;
}
