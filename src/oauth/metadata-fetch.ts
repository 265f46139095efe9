// The fetch behind client ID metadata documents: https only, no redirects, 5 s and 64 KiB at most,
// and no private, loopback or link-local address unless the server itself listens on loopback only
// (a local setup whose clients are local too). The address is judged when the socket connects, by
// the one guard every outbound request uses (src/http/outbound.ts), so DNS rebinding cannot pass.

import type { Agent } from 'undici';
import { type AllowPrivate, guardedAgent, type Resolve } from '../http/outbound.js';
import type { MetadataFetch } from './client-metadata.js';

export const METADATA_TIMEOUT_MS = 5_000;
export const METADATA_MAX_BYTES = 64 * 1024;

/** A fetcher for documents; `allowPrivate` says whether private addresses may be asked. */
export function metadataFetcher(allowPrivate: AllowPrivate, resolve?: Resolve): MetadataFetch {
  // One pool for every document, made on first use; each new connection is judged as it is made.
  let pool: Promise<Agent> | undefined;
  return async (url) => {
    try {
      const u = new URL(url);
      if (u.protocol !== 'https:') return undefined;
      pool ??= guardedAgent(allowPrivate, resolve, { connections: 4 });
      const [{ fetch }, dispatcher] = await Promise.all([import('undici'), pool]);
      const r = await fetch(u, {
        redirect: 'error',
        signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
        headers: { accept: 'application/json' },
        dispatcher,
      });
      if (r.status !== 200 || !r.body) return undefined;
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of r.body) {
        size += chunk.length;
        if (size > METADATA_MAX_BYTES) return undefined;
        chunks.push(chunk);
      }
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  };
}
