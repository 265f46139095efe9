// Secrets stay inside: no token (static, pairing, relay, generated agent token, or a presented
// invalid one) appears in any response, stream frame, log line, metric or error; tokens are
// compared in constant time; console cookies are HttpOnly and SameSite; browser origins are
// checked on the WebSocket upgrade; config files holding secrets are refused with loose modes.
// The servers run in the test process (everything the server logs goes through its logger, which
// startApp records), but for the refused config files: `svc serve`'s exit code and message.
// (The visibility matrix across HTTP, SSE, attach and pairing proxies: security-matrix.test.ts.)

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { startApp } from '../helpers/app.js';
import { ROOT, SVC_BIN, testConfig, TOKENS, roomMessage, type HttpServer, type Json } from '../helpers/server.js';
import { AttachClient, SseClient, UpgradeRefused } from '../helpers/live.js';
import { StaticTokens } from '../../src/auth/credentials.js';

const PAIR_IN = 'pairin-secret-7f3c9a1b2d4e5f60718293a4b5c6d7e8';
const PAIR_OUT = 'pairout-secret-0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const PAIR_OUT2 = 'pairout2-secret-99aa88bb77cc66dd55ee44ff33001122';
const RELAY_TOKEN = 'relay-secret-5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b';
const CANARIES = ['canary-invalid-token-4242424242', 'agt_v1_canaryforgedagenttoken000000000000000', 'tok-admin-0123456789-but-longer'];

interface Ctx {
  s: HttpServer;
  /** Everything the server said to clients, except the one answer that carries each minted token. */
  seen: string[];
  minted: string[];
}

const secretsOf = (ctx: Ctx) => [
  ...Object.values(TOKENS).map((t) => t.value),
  PAIR_IN,
  PAIR_OUT,
  PAIR_OUT2,
  RELAY_TOKEN,
  ...CANARIES,
  ...ctx.minted,
];

const leaks = suite<Ctx>('secrets');
leaks.before(async (ctx) => {
  ctx.seen = [];
  ctx.minted = [];
  ctx.s = await startApp({
    config: {
      auth: {
        public_read: true,
        agent_registration: 'open',
        tokens: [...testConfig().auth.tokens, { id: 'from-far', value: PAIR_IN, scopes: ['pair'] }],
      },
      rooms: [
        { id: 'general', members: ['alpha', 'beta'] },
        { id: 'secret', members: ['alpha'], visibility: 'private' },
      ],
      // Peers that never answer: their failures get logged and reported, which must stay token-free.
      pairings: [
        { id: 'far', remote_network_id: 'farnet', remote_base_url: 'http://127.0.0.1:9', token: PAIR_OUT },
        {
          id: 'relayed',
          remote_network_id: 'relaynet',
          token: PAIR_OUT2,
          relay: { url: 'ws://127.0.0.1:9/v1/relay', room: 'relay-room-0123456789abcdef', token: RELAY_TOKEN },
        },
      ],
    },
  });
});
leaks.after(async (ctx) => ctx.s.dispose());

async function record(ctx: Ctx, method: string, p: string, token?: string, body?: unknown): Promise<Json> {
  const r = await ctx.s.req(method, p, { ...(token !== undefined ? { token } : {}), ...(body !== undefined ? { body } : {}) });
  ctx.seen.push(`${method} ${p} -> ${r.status} ${JSON.stringify([...r.headers])}\n${r.text}`);
  return r;
}

leaks('never appear in answers, stream frames, metrics or logs, whatever the credential', async (ctx) => {
  const { s } = ctx;
  const sse = await SseClient.open(s, { token: TOKENS.admin.value });
  const anonSse = await SseClient.open(s);
  // An anonymous open-registration claim shows its token exactly once.
  const reg = await s.post('/v1/agents/register', { requested_agent_id: 'gamma', name: 'Gamma' });
  assert.is(reg.status, 200, reg.text);
  ctx.minted.push(reg.body.agent_token);
  const again = await record(ctx, 'POST', '/v1/agents/register', reg.body.agent_token, { requested_agent_id: 'gamma' });
  assert.is(again.status, 200);
  assert.is(again.body.agent_token, undefined);
  // ... and over IDENTIFY: the READY frame carries the token, nothing after it does.
  const anon = await AttachClient.open(s);
  const ready = await anon.identify({ network_id: 'testnet', agent: { id: 'delta' } });
  ctx.minted.push(ready.agent_token);
  const afterReady: string[] = [];
  anon.ws.on('message', (d) => afterReady.push(d.toString()));

  const credentials = [undefined, ...Object.values(TOKENS).map((t) => t.value), PAIR_IN, ...CANARIES, ...ctx.minted];
  const paths = [
    '/v1/network',
    '/v1/rooms',
    '/v1/rooms/secret',
    '/v1/rooms/general/messages',
    '/v1/dms',
    '/v1/agents',
    '/v1/agents/gamma',
    '/v1/pairings',
    '/v1/pairings/far',
    '/v1/pairings/far/rooms',
    '/v1/pairings/relayed/network',
    '/v1/artifacts?room_id=general',
    '/metrics',
    '/install.md',
    '/skill.md',
    '/llms.txt',
    '/console/api/session',
    '/readyz',
    '/nope',
  ];
  for (const tok of credentials) {
    for (const p of paths) await record(ctx, 'GET', p, tok);
    await record(ctx, 'POST', '/v1/messages', tok, roomMessage('general', 'gamma', `from ${tok?.slice(0, 4)}`));
    await record(ctx, 'POST', '/v1/messages', tok, {
      target: { kind: 'dm', participant_ids: ['beta'] },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: 'psst' }],
    });
    await record(ctx, 'POST', '/v1/rooms', tok, { id: 'x', members: 7 });
    await record(ctx, 'POST', '/v1/agents/register', tok, { requested_agent_id: 'alpha' });
    await record(ctx, 'DELETE', '/v1/agents/nobody', tok);
    const sseTry = await SseClient.open(s, tok ? { token: tok } : {});
    ctx.seen.push(`SSE ${sseTry.status} ${JSON.stringify(sseTry.headers)} ${sseTry.body}`);
    sseTry.close();
    try {
      const c = await AttachClient.open(s, tok ? { token: tok } : {});
      await c.next('HELLO');
      c.send({ op: 'IDENTIFY', network_id: 'testnet', agent: { id: 'alpha' } });
      const f = await c.next((x) => x.op === 'READY' || x.op === 'ERROR');
      ctx.seen.push(`ATTACH ${JSON.stringify(f)}`);
      await c.close();
    } catch (err) {
      ctx.seen.push(`ATTACH refused ${err instanceof UpgradeRefused ? `${err.status} ${err.body}` : String(err)}`);
    }
  }
  // The console bootstrap takes a token in the URL and must drop it everywhere.
  const boot = await fetch(`${s.url}/console/?access_token=${TOKENS.observer.value}`, { redirect: 'manual' });
  ctx.seen.push(`BOOT ${boot.status} ${JSON.stringify([...boot.headers])} ${await boot.text()}`);
  // Let the pairings fail a few times (and log it).
  await new Promise((r) => setTimeout(r, 1500));
  const metrics = await s.get('/metrics', TOKENS.admin.value);
  assert.is(metrics.status, 200);
  ctx.seen.push(metrics.text);
  ctx.seen.push(...sse.all.map((f) => JSON.stringify(f)), ...anonSse.all.map((f) => JSON.stringify(f)), ...afterReady);
  sse.close();
  anonSse.close();
  await anon.close();

  const secrets = secretsOf(ctx);
  for (const text of ctx.seen) {
    for (const sec of secrets) assert.not.ok(text.includes(sec), `a secret (${sec.slice(0, 12)}...) leaked in:\n${text.slice(0, 400)}`);
  }
  const log = s.output();
  assert.ok(log.length > 0);
  for (const sec of secrets) assert.not.ok(log.includes(sec), `a secret (${sec.slice(0, 12)}...) reached the log`);
  // Prometheus label values are route patterns, never request paths with ids or credentials.
  for (const line of metrics.text.split('\n').filter((l) => l.startsWith('svc_http_requests_total{'))) {
    assert.not.match(line, /route="[^"]*(gamma|secret|general|access_token)/, line);
  }
});

leaks('no file the server writes holds a generated agent token', async (ctx) => {
  const files = readdirSync(path.join(ctx.s.dir, '.svc')).map((f) => path.join(ctx.s.dir, '.svc', f));
  for (const f of files) {
    const bytes = readFileSync(f).toString('latin1');
    for (const tok of ctx.minted) assert.not.ok(bytes.includes(tok), `${f} holds a generated token`);
  }
});

const cmp = suite('token comparison');

cmp('compares a presented token against every configured token with timingSafeEqual, wherever it matches', () => {
  const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const real = crypto.timingSafeEqual;
  const lengths: number[] = [];
  crypto.timingSafeEqual = ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    lengths.push(a.byteLength, b.byteLength);
    return real(a, b);
  }) as typeof real;
  syncBuiltinESMExports();
  try {
    const tokens = new StaticTokens([
      { id: 'a', value: 'first-token-value', scopes: ['observe'] },
      { id: 'b', value: 'second', scopes: ['observe'] },
      { id: 'c', value: 'a-third-token-of-another-length-entirely', scopes: ['observe'] },
    ]);
    for (const presented of ['first-token-value', 'a-third-token-of-another-length-entirely', 'first-token-valuX', 'f', '']) {
      lengths.length = 0;
      tokens.find(presented);
      // Three comparisons every time, of fixed-length digests: timing depends on neither the match nor the length.
      assert.equal(lengths, [32, 32, 32, 32, 32, 32], `for ${JSON.stringify(presented)}`);
    }
    assert.is(tokens.find('second')?.id, 'b');
    assert.is(tokens.find('second ')?.id, undefined);
  } finally {
    crypto.timingSafeEqual = real;
    syncBuiltinESMExports();
  }
});

cmp('no source file compares two secrets with == or ===', () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        readFileSync(p, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            // identifier-to-identifier equality where one side names a token or secret
            const m = /([\w.$#\]]+)\s*[!=]==?\s*([\w.$#[\]]+)/.exec(line.replace(/\/\/.*$/, ''));
            if (!m) return;
            const [a, b] = [m[1]!, m[2]!];
            const literal = (x: string) => /^(undefined|null|true|false|\d+|typeof)$/.test(x);
            if (literal(a) || literal(b)) return;
            if (
              /(token|secret|password)(?!s?\.length|Id|_id|\.id|Kind|Count)/i.test(`${a} ${b}`) &&
              !/\.(kind|length|size|type|id)$/.test(a)
            ) {
              offenders.push(`${path.relative(ROOT, p)}:${i + 1}: ${line.trim()}`);
            }
          });
      }
    }
  };
  walk(path.join(ROOT, 'src'));
  assert.equal(offenders, []);
});

const web = suite<{ s: HttpServer }>('browser-facing defences');
web.before(async (ctx) => {
  ctx.s = await startApp();
});
web.after(async (ctx) => ctx.s.dispose());

web('the console session cookie is HttpOnly and SameSite, and the token leaves the URL', async ({ s }) => {
  const r = await fetch(`${s.url}/console/?access_token=${TOKENS.observer.value}`, { redirect: 'manual' });
  assert.is(r.status, 303);
  const cookie = r.headers.get('set-cookie') ?? '';
  assert.match(cookie, /;\s*HttpOnly/i);
  assert.match(cookie, /;\s*SameSite=(Strict|Lax)/i);
  assert.not.ok(cookie.includes(TOKENS.observer.value));
  assert.is(r.headers.get('location'), '/console/');
});

web('a browser origin other than the server own is refused on the WebSocket upgrade', async ({ s }) => {
  for (const origin of ['https://evil.example', `http://127.0.0.1:${s.port + 1}`, 'null', 'file://']) {
    try {
      const c = await AttachClient.open(s, { token: TOKENS.admin.value, headers: { origin } });
      await c.close();
      assert.unreachable(`origin ${origin} was accepted`);
    } catch (err) {
      assert.instance(err, UpgradeRefused, String(err));
      assert.is((err as UpgradeRefused).status, 403);
      assert.is(JSON.parse((err as UpgradeRefused).body).code, 'forbidden');
    }
  }
  const ok = await AttachClient.open(s, { token: TOKENS.admin.value, headers: { origin: `http://localhost:${s.port}` } });
  await ok.next('HELLO');
  await ok.close();
});

const files = suite('config files holding secrets');

function serveWith(file: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [SVC_BIN, 'serve', '--config', file, '--listen', '127.0.0.1:0'], {
    encoding: 'utf8',
    timeout: 15_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, stderr: r.stderr };
}

files('are refused when group or world may read them, or when they are symlinks, saying why', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-modes-'));
  try {
    const file = path.join(dir, 'svc.yaml');
    writeFileSync(file, stringify(testConfig()));
    for (const mode of [0o644, 0o640, 0o604, 0o660]) {
      chmodSync(file, mode);
      const r = serveWith(file);
      assert.is(r.status, 1, `mode ${mode.toString(8)}: ${r.stderr}`);
      assert.match(r.stderr, /readable or writable by group or others/);
      assert.match(r.stderr, /chmod 600/);
      assert.not.ok(r.stderr.includes(TOKENS.admin.value));
    }
    chmodSync(file, 0o600);
    const link = path.join(dir, 'link.yaml');
    symlinkSync(file, link);
    const viaLink = serveWith(link);
    assert.is(viaLink.status, 1);
    assert.match(viaLink.stderr, /symlink/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

leaks.run();
cmp.run();
web.run();
files.run();
