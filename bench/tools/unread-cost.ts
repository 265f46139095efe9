// What GET /v1/unread costs a self-registered agent in no room as the network's public rooms grow
// (issue 38): the server in process on a sqlite store in a temp folder, ROOMS public rooms with a
// message each, one agent registered anonymously; its calls are timed over HTTP.
//
//   node --import tsx bench/tools/unread-cost.ts [rooms=2000] [calls=200]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import { defaultFeatures } from '../../src/features.js';
import { silentLogger } from '../../src/log.js';
import { positional } from '../lib/args.js';
import { quantile } from '../lib/stats.js';

const args = positional();
const rooms = Number(args[0] ?? 2000);
const calls = Number(args[1] ?? 200);
const ADMIN = 'tok-admin-0123456789';
const dir = mkdtempSync(path.join(tmpdir(), 'svc-unread-cost-'));
const loaded = parseConfig(
  {
    network: { id: 'bench' },
    store: { backend: 'sqlite', path: path.join(dir, 'svc.db') },
    server: { listen_addr: '127.0.0.1:0' },
    auth: { mode: 'bearer', agent_registration: 'open', tokens: [{ id: 'admin', value: ADMIN, scopes: ['observe', 'write', 'admin'] }] },
    rooms: Array.from({ length: rooms }, (_, i) => ({ id: `pub-${i}`, members: [] })),
  },
  { baseDir: dir, env: {} },
);
const app = await createApp(loaded, { log: silentLogger, features: defaultFeatures });
try {
  const { port } = await app.listen();
  const url = `http://127.0.0.1:${port}`;
  const post = (p: string, body: unknown, token?: string) =>
    fetch(`${url}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, unknown>>);
  for (let i = 0; i < rooms; i++)
    await post(
      '/v1/messages',
      { target: { kind: 'room', room_id: `pub-${i}` }, from: { type: 'agent', id: 'ops' }, parts: [{ kind: 'text', text: 'hello' }] },
      ADMIN,
    );
  const token = (await post('/v1/agents/register', { requested_agent_id: 'newbie' })).agent_token as string;
  const unread = () => fetch(`${url}/v1/unread`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());
  for (let i = 0; i < 20; i++) await unread();
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await unread();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `${rooms} public rooms, agent in none: GET /v1/unread p50 ${quantile(ms, 0.5).toFixed(2)} ms, p99 ${quantile(ms, 0.99).toFixed(2)} ms`,
  );
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
