// The /install.md carve-out applies to direct, unproxied loopback requests only: the peer is a
// loopback address and the request carries no header a reverse proxy adds. Pure.

import type { IncomingHttpHeaders } from 'node:http';

/** Headers that reverse proxies and CDNs add; any one of them means "came through a proxy". */
export const PROXY_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-forwarded-server',
  'x-real-ip',
  'x-client-ip',
  'x-original-forwarded-for',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'via',
] as const;

/** Whether an address is loopback: 127.0.0.0/8, ::1, or IPv4-mapped 127.x. */
export function isLoopbackAddress(addr: string | undefined): boolean {
  if (!addr) return false;
  const a = addr.toLowerCase();
  if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** A loopback peer that shows no sign of a reverse proxy. */
export function isDirectLoopback(remoteAddress: string | undefined, headers: IncomingHttpHeaders): boolean {
  return isLoopbackAddress(remoteAddress) && PROXY_HEADERS.every((h) => headers[h] === undefined);
}
