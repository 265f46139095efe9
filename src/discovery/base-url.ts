// The URL callers reach this server at, for links in documents and pages: the Host header (or
// X-Forwarded-Host/Proto when a proxy sent them), validated so header junk never reaches a
// document; the bound address otherwise.

import type { IncomingHttpHeaders } from 'node:http';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*\\.?|\\[[0-9A-Fa-f:.]{2,45}\\])(?::(\\d{1,5}))?$`);

/** The host[:port] if it is a syntactically valid authority, else undefined. */
export function validHost(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 260) return undefined;
  const m = HOST.exec(value);
  if (!m) return undefined;
  if (m[1] !== undefined && Number(m[1]) > 65535) return undefined;
  return value.toLowerCase();
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim();

/** `http(s)://host[:port]` without a trailing slash. */
export function baseUrlOf(headers: IncomingHttpHeaders, encrypted: boolean, fallback: { host: string; port: number }): string {
  const fwdProto = first(headers['x-forwarded-proto'])?.toLowerCase();
  const scheme = fwdProto === 'https' || fwdProto === 'http' ? fwdProto : encrypted ? 'https' : 'http';
  const host = validHost(first(headers['x-forwarded-host'])) ?? validHost(headers.host) ?? fallbackHost(fallback);
  return `${scheme}://${host}`;
}

function fallbackHost({ host, port }: { host: string; port: number }): string {
  const h = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `${h}:${port}`;
}

/** The WebSocket URL of a path on a base URL. */
export function wsUrl(base: string, p: string): string {
  return `${base.replace(/^http/, 'ws')}${p}`;
}
