// Browser Origin checks for WebSocket upgrades (server.allowed_origins). Pure.

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/** The default allowed origins: localhost origins at the bound port (and the bound host itself). */
export function defaultOrigins(host: string, port: number): string[] {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const hosts = [...LOOPBACK_HOSTS];
  if (!WILDCARD_HOSTS.has(bracketed) && !hosts.includes(bracketed)) hosts.push(bracketed);
  return hosts.flatMap((h) => [`http://${h}:${port}`, `https://${h}:${port}`]);
}

/** scheme://host:port with default ports made explicit, or undefined for what is not an origin. */
function normalize(origin: string): string | undefined {
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    return `${u.protocol}//${u.hostname}:${port}`;
  } catch {
    return undefined;
  }
}

/**
 * Whether an upgrade with this Origin header may proceed. No Origin (not a browser) passes;
 * `*` in the list allows any origin.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  if (allowed.includes('*')) return true;
  const o = normalize(origin);
  if (o === undefined) return false;
  return allowed.some((a) => normalize(a) === o);
}
