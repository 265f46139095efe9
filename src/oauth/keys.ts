// The OAuth server's secrets, made once per network and kept in the store (kv kind `oauth:keys`):
// the cookie signing keys and the token signing key set. Every instance inserts its candidate if
// none is stored and then uses whatever is stored, so all instances and every restart agree.

import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { KvTable } from '../store/types.js';

/** A private JSON Web Key as oidc-provider takes it in `jwks.keys`. */
export type PrivateJwk = Record<string, string>;

export interface OAuthKeys {
  /** Cookie signing keys, newest first. */
  cookies: string[];
  /** The signing keys (ID tokens, signed responses); access tokens are opaque. */
  jwks: { keys: PrivateJwk[] };
}

export const KEYS_KIND = 'oauth:keys';
const KEYS_ID = 'provider';

/** A new set of keys: one cookie key, one RS256 signing key. */
export function newKeys(): OAuthKeys {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as PrivateJwk;
  return {
    cookies: [randomBytes(32).toString('base64url')],
    jwks: { keys: [{ ...jwk, kid: randomUUID(), alg: 'RS256', use: 'sig' }] },
  };
}

/** The network's keys: the stored ones, or `candidate` (new ones by default) stored first. */
export async function loadKeys(kv: KvTable, candidate: () => OAuthKeys = newKeys): Promise<OAuthKeys> {
  const stored = await kv.get(KEYS_KIND, KEYS_ID);
  if (stored) return JSON.parse(stored.value) as OAuthKeys;
  const kept = await kv.putIfAbsent({ kind: KEYS_KIND, id: KEYS_ID, value: JSON.stringify(candidate()) });
  return JSON.parse(kept.value) as OAuthKeys;
}
