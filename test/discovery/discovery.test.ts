// The discovery documents over HTTP: every access rule of /install.md (with its loopback
// carve-out), /skill.md and /llms.txt, their content per caller, and the base URL they use.
// The test server is on 127.0.0.1, so a request is "direct loopback" unless it carries a proxy
// header; X-Forwarded-For makes it look like it came through a reverse proxy.

import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, TOKENS } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

/** uvu ignores an error thrown in `before` (the suite then "passes" with no test run); a setup run
 * once from `before.each` makes a failed setup fail every test instead. */
function setupOnce<T>(t: Test<T>, fn: (ctx: T) => Promise<void>): void {
  let ready: Promise<void> | undefined;
  t.before.each(async (ctx) => {
    ready ??= fn(ctx);
    await ready;
  });
}

const PROXIED = { 'x-forwarded-for': '203.0.113.7' };
const ROOMS = [
  { id: 'general', name: 'General', members: ['alpha'] },
  { id: 'lobby', name: 'Lobby', write_policy: 'registered_agents' },
  { id: 'backroom', name: 'Back Room', members: ['alpha'], visibility: 'private' },
];

async function get(s: AppServer, p: string, token?: string, headers: Record<string, string> = {}) {
  return s.req('GET', p, { ...(token !== undefined ? { token } : {}), headers });
}

/** A GET with a Host header of our choice (fetch does not let a caller set Host). */
function getWithHost(s: AppServer, path: string, host: string, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: s.port, path, headers: { host, authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
}

const p = suite<{ s: AppServer }>('discovery documents on a protected network');
setupOnce(p, async (ctx) => {
  ctx.s = await startApp({ config: { rooms: ROOMS } });
});
p.after(async (ctx) => ctx.s?.dispose());

p('install.md on a direct loopback request is readable without a credential and is the anonymous render', async ({ s }) => {
  const r = await get(s, '/install.md');
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'text/markdown; charset=utf-8');
  assert.ok(r.text.includes('no credential: this network is protected'));
  assert.not.ok(r.text.includes('backroom'));
});

p('install.md on a direct loopback request never answers 401, not even to an invalid token', async ({ s }) => {
  const anonymous = (await get(s, '/install.md')).text;
  for (const auth of ['Bearer not-valid', 'Basic abc', 'Bearer']) {
    const r = await s.req('GET', '/install.md', { headers: { authorization: auth } });
    assert.is(r.status, 200, auth);
    assert.is(r.text, anonymous, `${auth} gets the anonymous render`);
  }
});

p('install.md on a direct loopback request gives an under-scoped token the anonymous render', async ({ s }) => {
  const anonymous = (await get(s, '/install.md')).text;
  for (const t of [TOKENS.writer.value, TOKENS.attacher.value, TOKENS.pair.value]) {
    const r = await get(s, '/install.md', t);
    assert.is(r.status, 200);
    assert.is(r.text, anonymous);
  }
});

p('install.md gives a valid observe or admin credential the same render on loopback as through a proxy', async ({ s }) => {
  for (const t of [TOKENS.observer.value, TOKENS.admin.value, TOKENS.adminOnly.value]) {
    const direct = await get(s, '/install.md', t);
    const proxied = await get(s, '/install.md', t, PROXIED);
    assert.is(direct.status, 200);
    assert.is(proxied.status, 200);
    assert.is(direct.text, proxied.text);
    assert.ok(direct.text.includes('a token with the scopes'));
  }
  const obs = (await get(s, '/install.md', TOKENS.observer.value)).text;
  assert.ok(obs.includes('curl -fsS "$SVC_URL/v1/rooms/general/messages?limit=50" -H "Authorization: Bearer $SVC_TOKEN"'));
});

p('install.md through a proxy needs observe or admin: 401 without or with an invalid token, 403 under-scoped', async ({ s }) => {
  assert.is((await get(s, '/install.md', undefined, PROXIED)).status, 401);
  assert.is((await get(s, '/install.md', 'nope', PROXIED)).status, 401);
  assert.is((await get(s, '/install.md', TOKENS.writer.value, PROXIED)).status, 403);
  assert.is((await get(s, '/install.md', TOKENS.pair.value, PROXIED)).status, 403);
  const proxyHeaders: Record<string, string>[] = [
    { forwarded: 'for=203.0.113.7' },
    { 'x-real-ip': '203.0.113.7' },
    { via: '1.1 edge' },
    { 'x-forwarded-proto': 'https' },
  ];
  for (const h of proxyHeaders) {
    assert.is((await get(s, '/install.md', undefined, h)).status, 401, JSON.stringify(h));
  }
});

p('skill.md and llms.txt refuse anonymous (401) and invalid tokens (401) on a protected network, loopback or not', async ({ s }) => {
  for (const path of ['/skill.md', '/llms.txt']) {
    assert.is((await get(s, path)).status, 401, path);
    assert.is((await get(s, path, 'nope')).status, 401, path);
    assert.is((await get(s, path, undefined, PROXIED)).status, 401, path);
  }
});

p('skill.md accepts observe, write, admin and attach and refuses pair', async ({ s }) => {
  for (const t of [TOKENS.observer, TOKENS.writer, TOKENS.adminOnly, TOKENS.attacher])
    assert.is((await get(s, '/skill.md', t.value)).status, 200, t.id);
  assert.is((await get(s, '/skill.md', TOKENS.pair.value)).status, 403);
});

p('llms.txt accepts observe and admin and refuses write-, attach- and pair-only tokens', async ({ s }) => {
  for (const t of [TOKENS.observer, TOKENS.adminOnly]) {
    const r = await get(s, '/llms.txt', t.value);
    assert.is(r.status, 200, t.id);
    assert.is(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  }
  for (const t of [TOKENS.writer, TOKENS.attacher, TOKENS.pair]) assert.is((await get(s, '/llms.txt', t.value)).status, 403, t.id);
});

p('skill.md for a read-only token lists every visible room and has no send or admin examples', async ({ s }) => {
  const text = (await get(s, '/skill.md', TOKENS.observer.value)).text;
  assert.ok(text.includes('| `backroom` | Back Room | private | members | `alpha` |'));
  assert.ok(text.includes('| `lobby` | Lobby | public | members and registered agents | - |'));
  assert.ok(text.includes('Rooms that accept registered agents (not only members): yes, `lobby`'));
  assert.not.ok(text.includes('/v1/messages"'));
  assert.not.ok(text.includes('-X POST'));
  assert.not.ok(text.includes('-X DELETE'));
  assert.not.ok(text.includes('svc apply'));
});

p('skill.md for a write-only token lists no room it cannot observe and still shows how to send', async ({ s }) => {
  const text = (await get(s, '/skill.md', TOKENS.writer.value)).text;
  for (const id of ['general', 'lobby', 'backroom']) assert.not.ok(text.includes(id), id);
  assert.ok(text.includes('Your credential cannot read rooms'));
  assert.ok(text.includes(`curl -fsS -X POST "$SVC_URL/v1/messages" -H "Authorization: Bearer $SVC_TOKEN"`));
  assert.not.ok(text.includes('svc apply'));
});

p('skill.md for an admin adds clean-up commands and points to svc apply', async ({ s }) => {
  const text = (await get(s, '/skill.md', TOKENS.admin.value)).text;
  assert.ok(text.includes('## Operate'));
  assert.ok(text.includes(`curl -fsS -X DELETE "$SVC_URL/v1/rooms/<room_id>"`));
  assert.ok(text.includes(`svc agents delete <agent_id>`));
  assert.ok(text.includes('svc apply svc.yaml'));
  assert.ok(text.includes('`backroom`'));
});

p('skill.md for an allowlisted token shows only its agents rooms and public rooms', async ({ s }) => {
  const text = (await get(s, '/skill.md', TOKENS.alphaOnly.value)).text;
  assert.ok(text.includes('`backroom`'), 'alpha is a member of backroom');
  assert.ok(text.includes('limited to agents `alpha`'));
  assert.ok(text.includes('"from":{"type":"agent","id":"alpha"}'));
});

p('documents use this server URL, its attach URL, and never echo the caller token', async ({ s }) => {
  for (const path of ['/install.md', '/skill.md', '/llms.txt']) {
    const r = await get(s, path, TOKENS.admin.value);
    assert.is(r.status, 200);
    assert.ok(r.text.includes(`export SVC_URL="${s.url}"`), path);
    assert.ok(r.text.includes(`ws://127.0.0.1:${s.port}/v1/attach`), path);
    assert.not.ok(r.text.includes(TOKENS.admin.value), path);
    assert.is(r.headers.get('cache-control'), 'no-store');
    assert.is(r.headers.get('x-content-type-options'), 'nosniff');
  }
});

p('the base URL follows a valid Host or forwarded host and ignores header junk', async ({ s }) => {
  const named = await getWithHost(s, '/skill.md', 'agents.example.com', TOKENS.observer.value);
  assert.ok(named.includes('export SVC_URL="http://agents.example.com"'));
  const bad = await getWithHost(s, '/skill.md', 'evil.example/"$(id)', TOKENS.observer.value);
  assert.ok(bad.includes(`export SVC_URL="http://127.0.0.1:${s.port}"`), 'an invalid Host falls back to the bound address');
  const fwd = await get(s, '/skill.md', TOKENS.observer.value, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'svc.example.org' });
  assert.ok(fwd.text.includes('export SVC_URL="https://svc.example.org"'));
  const fwdLlms = await get(s, '/llms.txt', TOKENS.observer.value, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'svc.example.org' });
  assert.ok(fwdLlms.text.includes('`wss://svc.example.org/v1/attach`'));
  const junk = await get(s, '/skill.md', TOKENS.observer.value, { 'x-forwarded-host': 'x"$(id)`<b>', 'x-forwarded-proto': 'javascript' });
  assert.ok(junk.text.includes(`export SVC_URL="${s.url}"`));
  assert.not.ok(junk.text.includes('$(id)'));
});

p('documents follow the live state: a room created over the API is listed at once', async ({ s }) => {
  assert.not.ok((await get(s, '/skill.md', TOKENS.observer.value)).text.includes('`fresh-room`'));
  const made = await s.post('/v1/rooms', { id: 'fresh-room', name: 'Fresh', members: [] }, TOKENS.admin.value);
  assert.is(made.status, 200, made.text);
  assert.ok((await get(s, '/skill.md', TOKENS.observer.value)).text.includes('| `fresh-room` | Fresh | public | members | - |'));
  assert.ok((await get(s, '/llms.txt', TOKENS.observer.value)).text.includes('room `fresh-room`'));
});

p('HEAD gives the headers of a document without its body', async ({ s }) => {
  const r = await s.req('HEAD', '/install.md');
  assert.is(r.status, 200);
  assert.is(r.text, '');
  assert.ok(Number(r.headers.get('content-length')) > 100);
});

p.run();

const o = suite<{ s: AppServer }>('discovery documents on an open network with public read');
setupOnce(o, async (ctx) => {
  ctx.s = await startApp({
    config: {
      auth: { mode: 'open', public_read: true, agent_registration: 'open', tokens: [TOKENS.admin, TOKENS.observer, TOKENS.writer] },
      rooms: ROOMS,
    },
  });
});
o.after(async (ctx) => ctx.s?.dispose());

o('all three documents are public, also through a proxy', async ({ s }) => {
  for (const path of ['/install.md', '/skill.md', '/llms.txt']) {
    assert.is((await get(s, path)).status, 200, path);
    assert.is((await get(s, path, undefined, PROXIED)).status, 200, path);
  }
});

o('an invalid token through a proxy is still a 401 on every document', async ({ s }) => {
  for (const path of ['/install.md', '/skill.md', '/llms.txt']) assert.is((await get(s, path, 'nope', PROXIED)).status, 401, path);
});

o('the public render lists public rooms only, says registration is open and how to claim an id', async ({ s }) => {
  const skill = (await get(s, '/skill.md')).text;
  assert.ok(skill.includes('| `general` | General | public |'));
  assert.not.ok(skill.includes('backroom'));
  assert.ok(skill.includes('- Agent registration: open: anyone may claim an unused agent id without a token'));
  assert.ok(skill.includes('Rooms that accept registered agents (not only members): yes, `lobby`'));
  assert.ok(skill.includes('Register first (see below), then send with your agent token'));
  const install = (await get(s, '/install.md')).text;
  assert.ok(install.includes(`curl -fsS -X POST "$SVC_URL/v1/agents/register" -H 'content-type: application/json'`));
  assert.ok(install.includes('- Any other request: anyone: public read is on.'));
  const llms = (await get(s, '/llms.txt')).text;
  assert.ok(llms.includes('room `general`'));
  assert.not.ok(llms.includes('backroom'));
});

o('the steps in install.md work against this server: register, then send with the shown-once token', async ({ s }) => {
  const reg = await s.post('/v1/agents/register', { requested_agent_id: 'my-agent', name: 'My Agent' });
  assert.is(reg.status, 200, reg.text);
  assert.match(reg.body.agent_token, /^agt_v1_/);
  const skill = (await get(s, '/skill.md', reg.body.agent_token)).text;
  assert.ok(skill.includes('- Your access: the agent token of `my-agent`'));
  const m = /-d '(\{"id":"my-agent-0001","target":\{"kind":"room","room_id":"lobby"\}[^']*)'/.exec(skill);
  assert.ok(m, 'the skill shows a send into the room that accepts registered agents');
  const sent = await s.post('/v1/messages', JSON.parse(m![1]!), reg.body.agent_token);
  assert.is(sent.status, 200, sent.text);
});

o('the attach program in install.md runs against this server and reaches READY', async ({ s }) => {
  const reg = await s.post('/v1/agents/register', { requested_agent_id: 'runner', name: 'Runner' });
  assert.is(reg.status, 200, reg.text);
  const install = (await get(s, '/install.md', reg.body.agent_token)).text;
  const js = /```js\n([\s\S]*?)\n```/.exec(install)?.[1];
  assert.ok(js, 'install.md has a JavaScript attach program');
  // Inside the repository so `import 'ws'` resolves to our node_modules.
  const dir = path.join(ROOT, 'test/.artifacts', `attach-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'attach.mjs'), js!);
  const child = spawn(process.execPath, ['attach.mjs'], {
    cwd: dir,
    env: { ...process.env, SVC_TOKEN: reg.body.agent_token, AGENT_ID: 'runner' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const out = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no READY in 10s: ${err}`)), 10_000);
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('ready as runner')) {
          clearTimeout(timer);
          resolve(err);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`attach program exited ${code}: ${err}`));
      });
    });
    assert.ok(out.includes('ready as runner'));
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

o.run();
