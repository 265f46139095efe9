// What one open wait_for_messages call on /v1/mcp holds in memory (#38 item 9). Starts the server in
// this process (memory store, open registration), registers agents, opens WAITS waits spread over
// them (each a raw POST whose answer stream stays open), and prints the growth of the heap and of
// external memory per wait after a forced GC. The waits are opened by a child process, so only the
// server's side is counted. Then the same requests are held open by a bare node:http server that
// reads the body and opens the same SSE answer: Node's own cost of an open request, which no wait
// can go below. Figures, not a test: docs/security.md keeps them.
//
//   node --expose-gc --import tsx bench/tools/mcp-wait-memory.ts [WAITS] [AGENTS]

import { fork } from 'node:child_process';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import { defaultFeatures } from '../../src/features.js';
import { silentLogger } from '../../src/log.js';

const WAITS = Number(process.argv[2] ?? 200);
const AGENTS = Number(process.argv[3] ?? 50);

/** The child: opens one wait per line of work, keeps every answer stream open, says when all are open. */
if (process.argv[4] === 'client') {
  const { url, tokens } = JSON.parse(process.argv[5]!) as { url: string; tokens: string[] };
  const held: http.IncomingMessage[] = [];
  for (let i = 0; i < WAITS; i++) {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'wait_for_messages', arguments: { timeout_s: 300 } },
    });
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${url}/v1/mcp`, {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${tokens[i % tokens.length]}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      });
      req.once('response', (res) => {
        held.push(res);
        resolve();
      });
      req.once('error', reject);
      req.end(body);
    });
  }
  process.send!('open');
  await new Promise(() => {});
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const loaded = parseConfig(
  {
    network: { id: 'bench' },
    store: { backend: 'memory' },
    auth: { mode: 'open' },
    // No cap here: the bench opens as many waits as it is asked to.
    server: { listen_addr: '127.0.0.1:0', limits: { mcp_waits_per_credential: 0, mcp_waits_per_server: 0 } },
  },
  { baseDir: tmpdir(), env: {} },
);
const app = await createApp(loaded, { log: silentLogger, features: defaultFeatures });
const { port } = await app.listen();
const url = `http://127.0.0.1:${port}`;

const tokens: string[] = [];
for (let i = 0; i < AGENTS; i++) {
  const r = await fetch(`${url}/v1/agents/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ requested_agent_id: `waiter-${i}` }),
  });
  tokens.push(((await r.json()) as { agent_token: string }).agent_token);
}
// One call of each path first (a wait, and a call the SDK answers), so what loads once is not counted per wait.
for (const body of [
  { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'wait_for_messages', arguments: { timeout_s: 0 } } },
  { jsonrpc: '2.0', id: 0, method: 'tools/list' },
]) {
  const r = await fetch(`${url}/v1/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[0]}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
  await r.text();
}

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 300));
    gc();
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external + m.arrayBuffers, rss: m.rss };
};
const before = await settle();
const child = fork(fileURLToPath(import.meta.url), [String(WAITS), String(AGENTS), 'client', JSON.stringify({ url, tokens })], {
  execArgv: ['--import', 'tsx'],
});
await new Promise<void>((resolve) => child.once('message', () => resolve()));
const during = await settle();
const per = (k: keyof typeof before) => ((during[k] - before[k]) / WAITS / 1024).toFixed(1);
console.log(
  `${WAITS} open waits (${AGENTS} agents): heap ${per('heap')} KB, external ${per('external')} KB, rss ${per('rss')} KB per wait` +
    ` (the server's side)`,
);
child.kill();
await app.close();

// Node's floor: the same requests, answered by a server that only reads the body and opens the stream.
const bare = http.createServer({ requestTimeout: 60_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString());
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
    res.flushHeaders();
  });
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;
const floorBefore = await settle();
const bareChild = fork(
  fileURLToPath(import.meta.url),
  [String(WAITS), String(AGENTS), 'client', JSON.stringify({ url: bareUrl, tokens })],
  {
    execArgv: ['--import', 'tsx'],
  },
);
await new Promise<void>((resolve) => bareChild.once('message', () => resolve()));
const floor = await settle();
console.log(
  `the same ${WAITS} requests held open by a bare node:http server: heap ${((floor.heap - floorBefore.heap) / WAITS / 1024).toFixed(1)} KB each`,
);
bareChild.kill();
process.exit(0);
