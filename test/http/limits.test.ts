import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { eventually, type HttpServer, startServer, testConfig, TOKENS, writeConfig, type TestServer } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';

interface Answer {
  status: number;
  body: { code?: string; error?: string; request_id?: string } | undefined;
  retryAfter: string | undefined;
}

/** One GET from a chosen loopback source address (Linux routes all of 127/8 to lo). */
function getFrom(s: HttpServer, path: string, opts: { from?: string; token?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: s.port,
        path,
        method: 'GET',
        agent: false,
        ...(opts.from ? { localAddress: opts.from } : {}),
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let body;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          const ra = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, body, retryAfter: typeof ra === 'string' ? ra : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** `total` requests, `parallel` at a time. */
async function flood(total: number, parallel: number, one: () => Promise<Answer>): Promise<Answer[]> {
  const out: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < total) {
        next++;
        out.push(await one());
      }
    }),
  );
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A steady client: `n` requests `gap` ms apart, all while `during` runs. */
async function steady(n: number, gap: number, one: () => Promise<Answer>): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) {
    codes.push((await one()).status);
    await sleep(gap);
  }
  return codes;
}

function assertRefusals(answers: Answer[]): void {
  const refused = answers.filter((a) => a.status === 429);
  assert.ok(refused.length > 0, 'the flood was never refused');
  for (const a of refused) {
    assert.is(a.body?.code, 'too_many_requests');
    assert.type(a.body?.request_id, 'string');
    assert.ok(Number(a.retryAfter) >= 1, `Retry-After ${a.retryAfter}`);
  }
  assert.ok(
    answers.every((a) => a.status === 200 || a.status === 429),
    answers.map((a) => a.status).join(','),
  );
}

const off = suite<{ s: TestServer }>('request limits by default');
off.before(async (ctx) => {
  ctx.s = await startServer();
});
off.after(async (ctx) => ctx.s.dispose());

off('are off: a burst of 300 requests from one credential is all answered', async ({ s }) => {
  const answers = await flood(300, 20, () => getFrom(s, '/v1/rooms', { token: TOKENS.observer.value }));
  assert.is(answers.filter((a) => a.status === 200).length, 300);
});

off('take effect on a config reload, and come off again', async ({ s }) => {
  writeConfig(
    s.dir,
    testConfig({ server: { listen_addr: '127.0.0.1:0', human_ingress: true, direct_messages: true, limits: { per_address_rps: 2 } } }),
  );
  s.proc.kill('SIGHUP');
  await eventually(
    async () => (await flood(20, 4, () => getFrom(s, '/v1/rooms', { token: TOKENS.observer.value }))).some((a) => a.status === 429),
    5000,
    'a 429 after the reload',
  );
  writeConfig(s.dir, testConfig());
  s.proc.kill('SIGHUP');
  await sleep(1500);
  await eventually(
    async () => (await flood(40, 4, () => getFrom(s, '/v1/rooms', { token: TOKENS.observer.value }))).every((a) => a.status === 200),
    5000,
    'no limit after the second reload',
  );
});

const cred = suite<{ s: HttpServer }>('a per-credential limit');
cred.before(async (ctx) => {
  ctx.s = await startApp({ config: { server: { limits: { per_credential_rps: 5 } } } });
});
cred.after(async (ctx) => ctx.s.dispose());

cred('refuses a flooding credential with 429 and Retry-After while another credential is served', async ({ s }) => {
  const [floodAnswers, other] = await Promise.all([
    flood(300, 16, () => getFrom(s, '/v1/rooms', { token: TOKENS.observer.value })),
    steady(6, 250, () => getFrom(s, '/v1/rooms', { token: TOKENS.admin.value })),
  ]);
  assertRefusals(floodAnswers);
  assert.equal(other, [200, 200, 200, 200, 200, 200]);
});

cred('never limits the health probes', async ({ s }) => {
  const answers = await flood(100, 10, () => getFrom(s, '/healthz'));
  assert.ok(answers.every((a) => a.status === 200));
});

const addr = suite<{ s: HttpServer }>('a per-address limit');
addr.before(async (ctx) => {
  ctx.s = await startApp({ config: { server: { limits: { per_address_rps: 5 } } } });
});
addr.after(async (ctx) => ctx.s.dispose());

addr('refuses a flooding address while another address is served', async ({ s }) => {
  const [floodAnswers, other] = await Promise.all([
    flood(300, 16, () => getFrom(s, '/v1/rooms', { from: '127.0.0.2', token: TOKENS.observer.value })),
    steady(6, 250, () => getFrom(s, '/v1/rooms', { from: '127.0.0.3', token: TOKENS.observer.value })),
  ]);
  assertRefusals(floodAnswers);
  assert.equal(other, [200, 200, 200, 200, 200, 200]);
});

addr('limits guesses with invalid tokens too', async ({ s }) => {
  const answers = await flood(60, 6, () => getFrom(s, '/v1/rooms', { from: '127.0.0.4', token: 'not-a-token' }));
  assert.ok(answers.some((a) => a.status === 401));
  assert.ok(answers.some((a) => a.status === 429));
  assert.ok(answers.every((a) => a.status === 401 || a.status === 429));
});

off.run();
cred.run();
addr.run();
