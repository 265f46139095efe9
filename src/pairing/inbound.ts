// Requests that arrive over a relay are answered by this server's own HTTP handler, through a real
// request to its bound address: authentication, scopes, visibility and write rules are exactly those
// of a direct request. Only the routes a pair credential uses travel this way.

import type { Agent } from 'undici';
import type { RequestFrame } from './relay-client.js';
import { parseBody, type PairResponse } from './transport.js';
import type { RelayedEvent } from '../network/relayed-event.js';
import { PEER_FILE_PATH } from './peer-files.js';

/** Method and path (without query) a relay peer may reach: the pair scope's routes (the spec, Scopes). */
const RELAYABLE: readonly (readonly [string, string])[] = [
  ['GET', '/v1/network'],
  ['GET', '/v1/rooms'],
  ['GET', '/v1/agents'],
  ['POST', '/v1/messages'],
];

/** Headers carried from a frame; anything else (host, forwarding headers, cookies) is dropped. */
const PASSED_HEADERS = ['authorization', 'content-type', 'accept', 'x-request-id'];

/** Whether a relayed request may be forwarded: a pair scope route, or a repeat of an event a feature relays. */
export function isRelayable(method: string, path: string, events: readonly RelayedEvent[] = []): boolean {
  const pathname = path.split('?')[0] ?? '';
  if (events.some((k) => k.accepts(method, pathname))) return true;
  // A file of a message relayed to the peer, fetched on its first download there (peer-files.ts).
  if (method === 'GET' && PEER_FILE_PATH.test(pathname)) return true;
  return RELAYABLE.some(([m, p]) => m === method && p === pathname);
}

/** Answers relayed requests by calling this server's own HTTP address. */
export class SelfForwarder {
  // undici loads on first use: most servers have no pairing, and it costs every start-up.
  private agent?: Agent;

  constructor(
    private readonly address: () => { host: string; port: number } | undefined,
    private readonly events: () => readonly RelayedEvent[],
  ) {}

  async answer(frame: RequestFrame): Promise<PairResponse> {
    if (!isRelayable(frame.method, frame.path, this.events())) {
      return {
        status: 404,
        body: { error: `${frame.method} ${frame.path.split('?')[0]} is not reachable through a pairing relay`, code: 'not_found' },
      };
    }
    const addr = this.address();
    if (!addr) return { status: 503, body: { error: 'the server is not listening yet', code: 'service_unavailable' } };
    const host = addr.host === '0.0.0.0' || addr.host === '' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host;
    const origin = `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
    const headers: Record<string, string> = {};
    for (const k of PASSED_HEADERS) if (frame.headers[k] !== undefined) headers[k] = frame.headers[k]!;
    // Marks the request as proxied: loopback carve-outs (install.md) must not apply to a remote peer.
    headers['x-forwarded-for'] = 'pairing-relay';
    const body = frame.body === undefined ? undefined : typeof frame.body === 'string' ? frame.body : JSON.stringify(frame.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const { Agent: UndiciAgent, request } = await import('undici');
    this.agent ??= new UndiciAgent({ connections: 8, keepAliveTimeout: 10_000 });
    const res = await request(origin + frame.path, {
      method: frame.method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      dispatcher: this.agent,
      headers,
      ...(body !== undefined ? { body } : {}),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    return { status: res.statusCode, body: parseBody(await res.body.text()) };
  }

  async close(): Promise<void> {
    await this.agent?.destroy().catch(() => {});
  }
}
