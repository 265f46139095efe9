// Binding a server to a listen address (`host:port`, `:port` for every interface), shared by the
// app and the standalone relay so both bind and report the address the same way.

import type { Server } from 'node:net';
import { bindTarget } from '../config/posture.js';

/** Listens on `addr`; resolves with the address bound (port 0 gets its real port), rejects on a bind error. */
export async function listenOn(server: Server, addr: string): Promise<{ host: string; port: number }> {
  const { host, port } = bindTarget(addr);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address();
  // Every interface: report the address Node really bound (:: or 0.0.0.0).
  return { host: host ?? (typeof a === 'object' && a ? a.address : '0.0.0.0'), port: typeof a === 'object' && a ? a.port : port };
}
