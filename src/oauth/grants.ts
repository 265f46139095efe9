// What people approved for OAuth clients, read from the provider's state in the store: each grant
// with its client, the agent it acts as and its scopes; revoking one deletes it and every token
// and code of it, so the client must ask again (`svc agents grants`, GET/DELETE /v1/oauth/grants).
// A consent stores a pending grant that lives minutes: it becomes a grant of 30 days, listed, when
// its code is exchanged for tokens (confirmGrant), so a consent whose code is never used leaves
// nothing behind. Its client is kept while the grant lasts (registration.ts forgets unused ones).

import type { OAuthGrant } from '../protocol/oauth-grants.js';
import type { KvPut, KvTable } from '../store/types.js';
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

/** Seconds a grant lasts once its code was exchanged. */
export const GRANT_TTL = 30 * 24 * 3600;

/** Seconds a consent's grant lasts until its code is exchanged (the code itself lives 60 s). */
export const PENDING_GRANT_TTL = 600;

/** Whether a stored grant is still pending: given a pending lifetime at the consent, never confirmed. */
export const isPending = (p: GrantPayload): boolean => p.exp !== undefined && p.iat !== undefined && p.exp - p.iat <= PENDING_GRANT_TTL;

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

/** Every unexpired grant whose code was exchanged, oldest first. */
export async function listGrants(kv: KvTable): Promise<OAuthGrant[]> {
  const rows = await kv.list(kindOf('Grant'));
  const names = new Map<string, string | undefined>();
  const out: OAuthGrant[] = [];
  for (const r of rows) {
    const p = JSON.parse(r.value) as GrantPayload;
    if (isPending(p)) continue;
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
 * A grant of an earlier release names the bare agent id: it names no registration, so it is never
 * the current one (it is refused already) and goes too.
 */
export async function revokeGrantsOf(kv: KvTable, agentId: string, current?: string): Promise<number> {
  let n = 0;
  for (const r of await kv.list(kindOf('Grant'))) {
    const accountId = (JSON.parse(r.value) as GrantPayload).accountId ?? '';
    const account = parseAccountId(accountId);
    if ((account?.agentId ?? accountId) !== agentId || (account !== undefined && account.actorUid === current)) continue;
    if (await revokeGrant(kv, r.id)) n++;
  }
  return n;
}

/**
 * Confirms a pending grant whose code was just exchanged: it lasts GRANT_TTL from now, and its
 * client is kept until a day (`keepClientFor`) after the grant ends. A confirmed grant is left as is.
 */
export async function confirmGrant(kv: KvTable, grantId: string, keepClientFor: number, now = Date.now()): Promise<void> {
  const row = await kv.get(kindOf('Grant'), grantId);
  if (!row) return;
  const p = JSON.parse(row.value) as GrantPayload;
  if (!isPending(p)) return;
  const exp = Math.floor(now / 1000) + GRANT_TTL;
  await kv.put(entryOf(row, { value: JSON.stringify({ ...p, exp }), expires_at: exp * 1000 }));
  const client = p.clientId ? await kv.get(kindOf('Client'), p.clientId) : undefined;
  const keep = (exp + keepClientFor) * 1000;
  if (client?.expires_at !== undefined && client.expires_at < keep) await kv.put(entryOf(client, { expires_at: keep }));
}

/** A stored row as put again with `changes` (its consumed mark is not carried). */
function entryOf(row: KvPut & { consumed_at?: number }, changes: Partial<KvPut>): KvPut {
  const { consumed_at: _, ...rest } = row;
  return { ...rest, ...changes };
}
