// One admission gate for HTTP, the SSE stream and the WebSocket upgrade: the per-address limit is
// counted before the credential is checked on every surface, so guessing tokens over /v1/attach
// or the event stream is limited exactly like any other request.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

interface Answer {
  status: number;
  code?: string;
  retryAfter?: string;
}

/** One request from a chosen loopback address; an upgrade request when `upgrade` is set. */
function ask(s: AppServer, path: string, o: { from: string; token?: string; upgrade?: boolean }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.upgrade) {
      Object.assign(headers, {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      });
    }
    const req = http.request({ host: '127.0.0.1', port: s.port, path, agent: false, localAddress: o.from, headers });
    const done = (res: http.IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      const finish = () => {
        let code: string | undefined;
        try {
          code = JSON.parse(text).code;
        } catch {
          code = undefined;
        }
        const ra = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, ...(code ? { code } : {}), ...(typeof ra === 'string' ? { retryAfter: ra } : {}) });
      };
      res.on('end', finish);
      // An SSE stream that was admitted never ends by itself: the status is the answer.
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        req.destroy();
        resolve({ status: res.statusCode ?? 0 });
      }
    };
    req.on('response', done);
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101 });
    });
    req.on('error', reject);
    req.end();
  });
}

async function inSequence(n: number, one: () => Promise<Answer>): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let i = 0; i < n; i++) out.push(await one());
  return out;
}

const gate = suite<{ s: AppServer }>('the admission gate with a per-address limit');
gate.before(async (ctx) => {
  ctx.s = await startApp({ config: { server: { limits: { per_address_rps: 2 } } } });
});
gate.after(async (ctx) => ctx.s.dispose());

const BAD = 'tok-guess-0000000000';

gate('bad-token upgrades to /v1/attach get 429 after the limit, like HTTP requests do', async ({ s }) => {
  const answers = await inSequence(12, () => ask(s, '/v1/attach', { from: '127.0.0.21', token: BAD, upgrade: true }));
  const statuses = answers.map((a) => a.status);
  assert.is(statuses[0], 401, statuses.join(','));
  assert.ok(
    statuses.every((x) => x === 401 || x === 429),
    statuses.join(','),
  );
  const refused = answers.filter((a) => a.status === 429);
  assert.ok(refused.length >= 6, `only ${refused.length} of 12 refused: ${statuses.join(',')}`);
  for (const a of refused) {
    assert.is(a.code, 'too_many_requests');
    assert.ok(Number(a.retryAfter) >= 1);
  }
  // The same address's HTTP requests share the bucket the upgrades drained.
  assert.is((await ask(s, '/v1/rooms', { from: '127.0.0.21', token: TOKENS.observer.value })).status, 429);
});

gate('bad-token requests to the event stream get 429 after the limit too', async ({ s }) => {
  const statuses = (await inSequence(12, () => ask(s, '/v1/events/stream', { from: '127.0.0.22', token: BAD }))).map((a) => a.status);
  assert.is(statuses[0], 401, statuses.join(','));
  assert.ok(statuses.filter((x) => x === 429).length >= 6, statuses.join(','));
});

gate('upgrades and HTTP from one address draw on one bucket', async ({ s }) => {
  const http1 = await inSequence(6, () => ask(s, '/v1/rooms', { from: '127.0.0.23', token: BAD }));
  assert.ok(
    http1.some((a) => a.status === 429),
    http1.map((a) => a.status).join(','),
  );
  const up = await ask(s, '/v1/attach', { from: '127.0.0.23', token: TOKENS.attacher.value, upgrade: true });
  assert.is(up.status, 429);
});

gate('another address is still admitted: a good upgrade is switched and a good stream opens', async ({ s }) => {
  assert.is((await ask(s, '/v1/attach', { from: '127.0.0.24', token: TOKENS.attacher.value, upgrade: true })).status, 101);
  assert.is((await ask(s, '/v1/events/stream', { from: '127.0.0.25', token: TOKENS.observer.value })).status, 200);
});

gate.run();
