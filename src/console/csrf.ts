// Cookie credentials ride along on any request the browser makes, so a state-changing request
// authenticated only by the session cookie must come from this origin. SameSite=Strict already
// keeps the cookie off cross-site requests; this is the second lock. Pure.

import type { IncomingHttpHeaders } from 'node:http';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a cookie may authenticate this request. */
export function cookieMayAuthenticate(method: string | undefined, headers: IncomingHttpHeaders): boolean {
  if (SAFE.has((method ?? 'GET').toUpperCase())) return true;
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === (headers.host ?? '').toLowerCase();
  } catch {
    return false;
  }
}
