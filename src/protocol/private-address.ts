// Which addresses svc's own outbound requests (to URLs its config or its callers name) may not
// reach unless allowed: loopback, private, link-local, shared, unspecified, multicast and
// reserved ranges, in IPv4 and IPv6 (an IPv4-mapped IPv6 address is judged as its IPv4 address).
// Pure, so the config check and the connect-time check (src/http/outbound.ts) give the same answer.

import { isIP } from 'node:net';

const V4_BLOCKS: [number, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
].map(([a, bits]) => [v4(a as string)!, bits as number]);

function v4(a: string): number | undefined {
  const p = a.split('.');
  if (p.length !== 4) return undefined;
  let n = 0;
  for (const x of p) {
    if (!/^\d{1,3}$/.test(x) || Number(x) > 255) return undefined;
    n = n * 256 + Number(x);
  }
  return n;
}

function privateV4(a: string): boolean {
  const n = v4(a);
  if (n === undefined) return true;
  return V4_BLOCKS.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));
}

/** The 8 groups of an IPv6 address (an embedded IPv4 tail becomes two groups). */
function groups6(a: string): number[] | undefined {
  let s = a.toLowerCase().split('%')[0]!;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const n = v4(tail[1]!);
    if (n === undefined) return undefined;
    s = `${s.slice(0, -tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const part = (x: string) => (x === '' ? [] : x.split(':').map((g) => Number.parseInt(g, 16)));
  const head = part(halves[0]!);
  const rest = halves.length === 2 ? part(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const all = [...head, ...new Array<number>(Math.max(0, fill)).fill(0), ...rest];
  return all.length === 8 && all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : undefined;
}

function privateV6(a: string): boolean {
  const g = groups6(a);
  if (!g) return true;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): judged as the IPv4 address.
  if (zeros(5) && (g[5] === 0xffff || g[5] === 0) && (g[6] !== 0 || g[7]! > 1)) {
    return privateV4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  }
  if (zeros(7) && (g[7] === 0 || g[7] === 1)) return true; // :: and ::1
  if ((g[0]! & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0]! & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (g[0] === 0x64 && g[1] === 0xff9b) return privateV4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`); // NAT64
  if (g[0] === 0x2001 && g[1] === 0xdb8) return true; // documentation
  return false;
}

/** Whether an IP address (v4 or v6 text) is one an outbound request may reach only where private addresses are allowed. */
export function isPrivateAddress(ip: string): boolean {
  const kind = isIP(ip.split('%')[0]!);
  if (kind === 4) return privateV4(ip);
  if (kind === 6) return privateV6(ip);
  return true;
}

/**
 * Why a URL's host is refused before any lookup (an IP literal in a private range, or a name that
 * always means this machine), or undefined when only DNS can tell.
 */
export function privateHostRefusal(hostname: string): string | undefined {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return `${hostname} is this machine (loopback)`;
  if (isIP(h.split('%')[0]!) && isPrivateAddress(h)) return `${hostname} is a loopback, private or reserved address`;
  return undefined;
}
