// An MCP client's side of OAuth for the tests: the SDK's OAuthClientProvider kept in memory, and a
// loopback callback server that catches the browser's redirect with the code (or the error).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** The client's state across the flow; `authorizationUrl` is where the SDK sent the person. */
export class MemoryOAuthClient implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: OAuthClientInformationMixed) {
    this.info = i;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A loopback server for the redirect URI; `next()` resolves with the query of the next callback. */
export async function callbackServer(): Promise<{ url: string; next(): Promise<URLSearchParams>; close(): Promise<void> }> {
  let waiting: ((q: URLSearchParams) => void) | undefined;
  const arrived: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    // The browser also asks for /favicon.ico: only the callback counts.
    if (u.pathname !== '/callback') return void res.writeHead(404).end();
    const q = u.searchParams;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
    if (waiting) {
      waiting(q);
      waiting = undefined;
    } else arrived.push(q);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const q = arrived.shift();
      if (q) return Promise.resolve(q);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no callback within 20 s')), 20_000);
        waiting = (x) => {
          clearTimeout(timer);
          resolve(x);
        };
      });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
