// Cookie parsing and the console session cookie's attributes. Pure.

import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'svc_session';

/** Cookie name -> value of a Cookie header; the first occurrence of a name wins. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const name = pair.slice(0, eq).trim();
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** Whether the request reached us (or the proxy in front of us) over https. */
export function cameOverHttps(req: IncomingMessage): boolean {
  const proto = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  if (first !== undefined && first !== '') return first === 'https';
  return Boolean((req.socket as { encrypted?: boolean }).encrypted);
}

/** The Set-Cookie value that carries a session id: HttpOnly, SameSite=Strict, Path=/, Secure over https. */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that deletes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
