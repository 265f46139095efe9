// The bind posture rule of SPEC "Default local posture", and the listen address parsing it needs.

import { isIPv4, isIPv6 } from 'node:net';
import type { Warning } from '../protocol/types.js';
import type { Config } from './types.js';

/** Splits `host:port`, `[v6]:port` or `:port` (host '' = all interfaces); throws an Error saying what is wrong. */
export function parseListenAddr(addr: string): { host: string; port: number } {
  const shape = 'must be host:port, [ipv6]:port or :port';
  let host: string;
  let portText: string;
  const bracketed = /^\[([^\]]*)\]:(.*)$/.exec(addr);
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2]!;
    if (!isIPv6(host)) throw new Error(`${shape}: "${host}" is not an IPv6 address`);
  } else {
    const colon = addr.lastIndexOf(':');
    if (colon < 0) throw new Error(`${shape} (no port in "${addr}")`);
    host = addr.slice(0, colon);
    portText = addr.slice(colon + 1);
    if (host.includes(':')) throw new Error(`${shape}: put an IPv6 host in brackets, e.g. [::1]:8787`);
    if (/[\s/[\]]/.test(host)) throw new Error(`${shape}: "${host}" is not a host name`);
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new Error(`${shape}: port must be a number from 0 to 65535, not "${portText}"`);
  }
  return { host, port: Number(portText) };
}

/**
 * The host and port to bind for a listen address. `:port` (and an empty host) means every
 * interface, as in the reference system: the host is left out, so Node binds `::` with IPv4
 * mapped in (or 0.0.0.0 where IPv6 is off). The bind warning reads the same parse, so it always
 * matches the real bind.
 */
export function bindTarget(addr: string): { host: string | undefined; port: number; allInterfaces: boolean } {
  const { host, port } = parseListenAddr(addr);
  const allInterfaces = isAllInterfaces(host);
  return { host: host === '' ? undefined : host, port, allInterfaces };
}

/** True for hosts that mean every interface: '', 0.0.0.0, ::. */
export function isAllInterfaces(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1 (and its IPv4-mapped form), localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h === 'localhost.') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (isIPv6(h)) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h);
  return false;
}

/** Startup and validation warnings about who can reach and register on this server. */
export function postureWarnings(config: Config): Warning[] {
  let host: string;
  try {
    ({ host } = parseListenAddr(config.server.listen_addr));
  } catch {
    return []; // the loader reports a bad address as an error
  }
  const { mode, agent_registration } = config.auth;
  if (isLoopbackHost(host)) return [];
  if (mode !== 'none' && agent_registration !== 'open') return [];
  const why =
    mode === 'none'
      ? 'auth.mode is none (no authorization checks)'
      : 'anyone who can reach it may register agents (auth.agent_registration: open)';
  return [
    {
      severity: 'warning',
      code: 'insecure_bind',
      message: `server.listen_addr ${config.server.listen_addr} is reachable from other machines and ${why}`,
      action:
        'use auth.mode: bearer with auth.agent_registration: token or disabled (and a static token), or bind to loopback (server.listen_addr: 127.0.0.1:8787)',
    },
  ];
}
