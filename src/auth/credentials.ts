// Credentials: static tokens looked up by SHA-256 in constant time, generated agent tokens
// stored only as a derived key.

import { hash, timingSafeEqual } from 'node:crypto';
import type { TokenConfig } from '../config/types.js';
import { secret } from '../protocol/ids.js';

export const AGENT_TOKEN_PREFIX = 'agt_v1_';

// One-shot hash: no Hash object per call (every authenticated request hashes its token).
export const sha256 = (s: string): Buffer => hash('sha256', s, 'buffer');

/** The credential key stored for an agent that owns a generated token. */
export const agentCredentialKey = (token: string): string => `agent:${sha256(token).toString('hex')}`;

export const staticCredentialKey = (tokenId: string): string => `token:${tokenId}`;

export const ANONYMOUS_CREDENTIAL = 'anonymous';

/** Mints a new agent token and the only thing the store keeps of it. */
export function mintAgentToken(): { token: string; credential_key: string } {
  const token = AGENT_TOKEN_PREFIX + secret(32);
  return { token, credential_key: agentCredentialKey(token) };
}

/** Static tokens by hash. Every lookup compares against every entry so timing says nothing. */
export class StaticTokens {
  private readonly entries: { hash: Buffer; token: TokenConfig }[];

  constructor(tokens: readonly TokenConfig[]) {
    this.entries = tokens.map((token) => ({ hash: sha256(token.value), token }));
  }

  find(presented: string): TokenConfig | undefined {
    const hash = sha256(presented);
    let found: TokenConfig | undefined;
    for (const e of this.entries) {
      if (timingSafeEqual(e.hash, hash)) found ??= e.token;
    }
    return found;
  }

  get size(): number {
    return this.entries.length;
  }
}
