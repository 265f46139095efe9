// The fetch behind client ID metadata documents: https only, no redirects, 5 s and 64 KiB at most,
// and no private, loopback or link-local address unless the server itself listens on loopback only
// (a local setup whose clients are local too). The address is checked on the name's resolution
// before the request; see docs/oauth.md for what that leaves open.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { MetadataFetch } from './client-metadata.js';

export const METADATA_TIMEOUT_MS = 5_000;
export const METADATA_MAX_BYTES = 64 * 1024;

/** Whether an IP address is private, loopback, link-local, unique-local or unspecified. */
export function isPrivateAddress(ip: string): boolean {
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number) as [number, number];
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  const x = ip.toLowerCase();
  return (
    x === '::1' ||
    x === '::' ||
    x.startsWith('fe8') ||
    x.startsWith('fe9') ||
    x.startsWith('fea') ||
    x.startsWith('feb') ||
    x.startsWith('fc') ||
    x.startsWith('fd')
  );
}

/** A fetcher for documents; `allowPrivate` says whether private addresses may be asked. */
export function metadataFetcher(allowPrivate: () => boolean): MetadataFetch {
  return async (url) => {
    try {
      const u = new URL(url);
      if (u.protocol !== 'https:') return undefined;
      if (!allowPrivate()) {
        const host = u.hostname.replace(/^\[|\]$/g, '');
        const addrs = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
        if (addrs.length === 0 || addrs.some(isPrivateAddress)) return undefined;
      }
      const r = await fetch(u, {
        redirect: 'error',
        signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
        headers: { accept: 'application/json' },
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
