// Credentials: static tokens looked up by SHA-256 in constant time, generated agent tokens
// stored only as a derived key.
//
// Every authenticated request presents its token, and hashing it was 2% of the ingest profile, so
// both lookups remember what they computed. Both are memos of pure functions (a token's key never
// changes; a StaticTokens is immutable), so a remembered answer is never stale: revoking an agent
// token removes its key from the store, which is still read on every request. Timing: a hit is a
// Map lookup by the presented string, whose cost depends on that string alone (its seeded hash);
// its content is compared with a remembered token only on a full hash match, which an attacker
// cannot aim for without the process's random hash seed, and it then tells only that this exact
// token was presented before. A static token is remembered only once it matched, so wrong guesses
// always take the hash and the constant-time scan and cannot fill or evict the memo. The agent
// memo keeps up to 1,024 tokens in memory a little longer than a request would (the process sees
// each of them anyway); wrong agent tokens can churn it, which costs a hash, never an answer.

import { hash, timingSafeEqual } from 'node:crypto';
import type { TokenConfig } from '../config/types.js';
import { secret } from '../protocol/ids.js';

export const AGENT_TOKEN_PREFIX = 'agt_v1_';

// One-shot hash: no Hash object per call (every authenticated request hashes its token).
export const sha256 = (s: string): Buffer => hash('sha256', s, 'buffer');

/** Agent tokens whose key is remembered (oldest forgotten first: churn costs speed, never correctness). */
const AGENT_KEYS_MAX = 1024;
const agentKeys = new Map<string, string>();

/** The credential key stored for an agent that owns a generated token. */
export function agentCredentialKey(token: string): string {
  let key = agentKeys.get(token);
  if (key === undefined) {
    key = `agent:${sha256(token).toString('hex')}`;
    if (agentKeys.size >= AGENT_KEYS_MAX) agentKeys.delete(agentKeys.keys().next().value!);
    agentKeys.set(token, key);
  }
  return key;
}

export const staticCredentialKey = (tokenId: string): string => `token:${tokenId}`;

export const ANONYMOUS_CREDENTIAL = 'anonymous';

/** Mints a new agent token and the only thing the store keeps of it. */
export function mintAgentToken(): { token: string; credential_key: string } {
  const token = AGENT_TOKEN_PREFIX + secret(32);
  return { token, credential_key: agentCredentialKey(token) };
}

/** Static tokens by hash. A lookup not remembered compares against every entry so timing says nothing. */
export class StaticTokens {
  private readonly entries: { hash: Buffer; token: TokenConfig }[];
  /** Presented strings that matched, at most one per entry (a match is the entry's value itself). */
  private readonly matched = new Map<string, TokenConfig>();

  constructor(tokens: readonly TokenConfig[]) {
    this.entries = tokens.map((token) => ({ hash: sha256(token.value), token }));
  }

  /** The configured token `presented` is, if any. */
  find(presented: string): TokenConfig | undefined {
    const known = this.matched.get(presented);
    if (known) return known;
    const hash = sha256(presented);
    let found: TokenConfig | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(e.hash, hash)) found ??= e.token;
    }
    if (found) this.matched.set(presented, found);
    return found;
  }

  get size(): number {
    return this.entries.length;
  }
}
