// Where svc's own outbound requests (to URLs its config or its callers name) may connect: one
// guard for every one of them, judged by src/protocol/private-address.ts on the address the
// socket is about to connect to. An IP literal is judged as written (the URL parser's forms too,
// `[::ffff:7f00:1]` is 127.0.0.1); a name is judged on the addresses its lookup gives, and the
// connection uses exactly those, so a name that answers differently the second time (DNS
// rebinding) has no second time.

import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import { isPrivateAddress, privateHostRefusal } from '../protocol/private-address.js';

/** Resolves a name to every address it has (dns.lookup by default; tests give their own). */
export type Resolve = (hostname: string, family: number) => Promise<LookupAddress[]>;

/** Whether private addresses may be reached, asked at each connection (it may change on reload). */
export type AllowPrivate = () => boolean;

/** The error a refused connection fails with; `code` EPRIVATE. */
export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATE';
}

const systemResolve: Resolve = (hostname, family) =>
  new Promise((resolve, reject) => {
    dns.lookup(hostname, { all: true, family: family === 4 || family === 6 ? family : 0 }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    );
  });

/** Why connecting to `hostname` (a name or IP literal, brackets allowed: private-address.ts drops them) is refused before any lookup. */
export function literalRefusal(hostname: string, allowPrivate: AllowPrivate): string | undefined {
  return allowPrivate() ? undefined : privateHostRefusal(hostname);
}

/** A `lookup` for net/tls/http that refuses a name when any of its addresses is private. */
export function guardedLookup(allowPrivate: AllowPrivate, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options === 'object' && options !== null ? Number(options.family ?? 0) : 0;
    resolve(hostname, family).then(
      (list) => {
        const bad = allowPrivate() ? undefined : list.find((a) => isPrivateAddress(a.address));
        if (bad)
          return callback(
            new PrivateAddressError(`${hostname} resolves to ${bad.address}, a loopback, private or reserved address`),
            '',
            0,
          );
        const first = list[0];
        if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/**
 * An undici Agent whose every connection passes the guard: a literal host is judged before the
 * socket is made, a name through the guarded lookup. undici is loaded on first use: most servers
 * never make such a request, and loading it costs every start-up.
 */
export async function guardedAgent(
  allowPrivate: AllowPrivate,
  resolve: Resolve = systemResolve,
  options: Omit<Agent.Options, 'connect'> = {},
): Promise<Agent> {
  const undici = await import('undici');
  const connect = undici.buildConnector({ lookup: guardedLookup(allowPrivate, resolve) } as buildConnector.BuildOptions);
  return new undici.Agent({
    ...options,
    connect: (opts, callback) => {
      const refused = literalRefusal(opts.hostname, allowPrivate);
      // A literal is never looked up, so this is its only check; a name is judged by the lookup.
      if (refused) return void callback(new PrivateAddressError(refused), null);
      connect(opts, callback);
    },
  });
}
