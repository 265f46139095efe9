// oidc-provider's storage adapter over the store's expiring key/value table (src/store/kv/), so
// clients, grants, codes, tokens, sessions and interactions live where every instance reads them
// and a restart forgets nothing. One row per model instance: kind `oauth:<Model>`, the payload as
// JSON, expiring when the library says it does; a session is found by its uid and a device code
// by its user code (the lookup key), every token of a grant by its grant id.

import type { KvPut, KvTable } from '../store/types.js';

/** oidc-provider's invalid_grant error (its declared types in oidc-provider.d.ts name only what routes use).
 * Imported when first needed: the library is large and most servers never start an OAuth flow. */
async function invalidGrant(description: string): Promise<Error> {
  const { errors } = await import('oidc-provider');
  return new (errors as unknown as { InvalidGrant: new (description: string) => Error }).InvalidGrant(description);
}

/** What oidc-provider stores of a model instance (its own JSON: ids, claims, lifetimes). */
export type AdapterPayload = Record<string, unknown> & {
  uid?: string;
  userCode?: string;
  grantId?: string;
  consumed?: number;
};

/** The interface oidc-provider calls, one instance per model name. */
export interface OAuthAdapter {
  upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<AdapterPayload | undefined>;
  findByUid(uid: string): Promise<AdapterPayload | undefined>;
  findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

export type OAuthAdapterClass = new (model: string) => OAuthAdapter;

/** The kv kind of an oidc-provider model's rows. */
export const kindOf = (model: string): string => `oauth:${model}`;

/** Models whose rows belong to a grant (revoked with it), as oidc-provider's own adapter has them. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/** The lookup key of a payload: sessions are found by uid, device codes by user code. */
function lookupOf(p: AdapterPayload): string | undefined {
  if (typeof p.uid === 'string') return `uid:${p.uid}`;
  if (typeof p.userCode === 'string') return `user_code:${p.userCode}`;
  return undefined;
}

/** An adapter class over `kv`, for `new Provider(issuer, { adapter })`. */
export function adapterOver(kv: KvTable, clock: () => number = Date.now): OAuthAdapterClass {
  return class StoreAdapter implements OAuthAdapter {
    private readonly kind: string;

    constructor(private readonly model: string) {
      this.kind = kindOf(model);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const lookup = lookupOf(payload);
      const entry: KvPut = { kind: this.kind, id, value: JSON.stringify(payload) };
      if (expiresIn !== undefined && expiresIn > 0) entry.expires_at = clock() + expiresIn * 1000;
      if (lookup) entry.lookup = lookup;
      if (GRANTABLE.has(this.model) && typeof payload.grantId === 'string') entry.grant_id = payload.grantId;
      await kv.put(entry);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await kv.get(this.kind, id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await kv.find(this.kind, `uid:${uid}`));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await kv.find(this.kind, `user_code:${userCode}`));
    }

    async consume(id: string): Promise<void> {
      // The library checks `consumed` before it consumes; two instances may both pass that check
      // with one code or refresh token. The store marks it once: the other is refused as a reuse.
      const marked = await kv.consume(this.kind, id, clock());
      if (!marked && GRANTABLE.has(this.model)) throw await invalidGrant(`${this.model} already used`);
    }

    async destroy(id: string): Promise<void> {
      await kv.delete(this.kind, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      // Every token row of the grant, whichever model asked: the library asks for each in turn.
      await kv.deleteGrant(grantId);
    }
  };
}

/** The payload of a row, with `consumed` (epoch seconds) when the row was consumed. */
function payloadOf(e: { value: string; consumed_at?: number } | undefined): AdapterPayload | undefined {
  if (!e) return undefined;
  const p = JSON.parse(e.value) as AdapterPayload;
  if (e.consumed_at !== undefined) p.consumed = Math.floor(e.consumed_at / 1000);
  return p;
}

/** How often expired OAuth rows are deleted. */
export const SWEEP_EVERY_MS = 10 * 60 * 1000;

/** Deletes expired rows every `everyMs` (failures are left for the next round); returns the stop. */
export function startSweeper(kv: KvTable, everyMs = SWEEP_EVERY_MS, log: (m: string) => void = () => {}): () => void {
  const timer = setInterval(() => {
    kv.sweep(Date.now()).catch((err: Error) => log(`oauth: sweeping expired state failed: ${err.message}`));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
