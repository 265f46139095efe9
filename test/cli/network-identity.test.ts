// Client state is keyed by the network's identity (issue 38 item 19): its id and the uid its store
// holds (GET /v1/network `uid`). Two networks both called home do not share an `svc mcp` cursor;
// another instance of the same network (a copy of its sqlite store, on another port) finds the
// agent token kept for it; a token kept under a server's address by an earlier release is found
// and copied to the identity's folder. The servers run in the test process; the CLI as processes.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, freePort } from '../helpers/cli.js';
import { startMcp } from '../helpers/mcp.js';
import { startApp } from '../helpers/app.js';
import { TOKENS, type HttpServer, type Json } from '../helpers/server.js';

const root = mkdtempSync(path.join(tmpdir(), 'svc-identity-'));
process.once('exit', () => rmSync(root, { recursive: true, force: true }));
const ALPHA = TOKENS.alphaOnly.value;
const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };
const uidOf = async (s: HttpServer, token?: string): Promise<string> => (await s.get('/v1/network', token)).body.uid;

test('two networks both called home do not share an svc mcp cursor: a DM on the second is returned', async () => {
  const home = path.join(root, 'mcp-home');
  mkdirSync(home);
  const config = {
    network: { id: 'home', name: 'Home' },
    auth: { tokens: [...Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes] })), BETA] },
    rooms: [{ id: 'general', members: ['alpha', 'beta'] }],
  };
  const a = await startApp({ config });
  const b = await startApp({ config });
  const say = async (s: HttpServer, target: Json, text: string) => {
    const r = await s.post('/v1/messages', { target, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text }] }, ALPHA);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  const mcp = (s: HttpServer) => startMcp(['--url', s.url, '--agent', 'beta'], { SVC_TOKEN: BETA.value, HOME: home });
  /** svc mcp on `s` until `text` (sent as it runs, or before) is returned by wait_for_messages. */
  const consume = async (s: HttpServer, target: Json, text: string) => {
    const m = await mcp(s);
    try {
      await m.waitFor(/attached as beta/);
      const id = await say(s, target, text);
      const got = await m.call('wait_for_messages', { timeout_s: 10 });
      assert.equal(
        (got.structuredContent as Json).messages.map((x: Json) => x.id),
        [id],
        got.text,
      );
      return m.stderr();
    } finally {
      await m.close();
    }
  };
  try {
    assert.is.not(await uidOf(a, ALPHA), await uidOf(b, ALPHA));
    const general = { kind: 'room', room_id: 'general' };
    const stderrB = await consume(b, general, '@beta on the second home');
    assert.match(stderrB, new RegExp(`state in \\S+/\\.svc/mcp/home@${await uidOf(b, ALPHA)}/beta`));
    // The first home has gone further: its cursor is past anything the second has.
    for (let i = 0; i < 15; i++) await say(a, general, `chatter ${i}`);
    await consume(a, general, '@beta on the first home');

    // While svc mcp is down, a DM on the second home: the next start there returns it.
    const dm = await say(b, { kind: 'dm', participant_ids: ['beta'] }, 'a DM on the second home');
    const mb = await mcp(b);
    try {
      await mb.waitFor(/attached as beta/);
      const got = await mb.call('wait_for_messages', { timeout_s: 10 });
      assert.equal(
        (got.structuredContent as Json).messages.map((x: Json) => x.id),
        [dm],
        got.text,
      );
    } finally {
      await mb.close();
    }
  } finally {
    await a.dispose();
    await b.dispose();
  }
});

test('a second instance of the same network (a copy of its store, another port) finds the kept token', async () => {
  const home = path.join(root, 'token-home');
  mkdirSync(home);
  const env = { HOME: home };
  const config = {
    network: { id: 'home', name: 'Home' },
    auth: { mode: 'open', agent_registration: 'open', tokens: [] },
    rooms: [{ id: 'general', write_policy: 'registered_agents' }],
  };
  const a = await startApp({ config });
  const uid = await uidOf(a);
  const reg = await cli(['agents', 'register', '--id', 'twin', '--url', a.url], { cwd: home, env });
  assert.is(reg.code, 0, reg.stderr);
  const kept = path.join(home, '.svc', 'agents', `home@${uid}`, 'twin.token');
  assert.match(reg.stdout, new RegExp(`kept in ${kept.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  await a.stop();
  const copy = path.join(root, 'copy');
  cpSync(a.dir, copy, { recursive: true });
  for (const f of ['svc.server.json', 'svc.db.lock']) rmSync(path.join(copy, '.svc', f), { force: true });
  await a.dispose();
  const b = await startApp({ dir: copy, keepConfig: true });
  try {
    assert.is(await uidOf(b), uid, 'the copy is the same network');
    const sent = await cli(['send', '--as', 'twin', '--room', 'general', '--url', b.url, 'from the copy'], { cwd: home, env });
    assert.is(sent.code, 0, sent.stderr);
    const token = await cli(['agents', 'token', 'twin', '--url', b.url], { cwd: home, env });
    assert.is(token.stdout, readFileSync(kept, 'utf8'));

    // A token an earlier release kept under the server's address is found, and copied to the identity's folder.
    const claim = await b.post('/v1/agents/register', { requested_agent_id: 'oldie' });
    assert.is(claim.status, 200, claim.text);
    const old = path.join(home, '.svc', 'agents', `home@127.0.0.1-${b.port}`, 'oldie.token');
    mkdirSync(path.dirname(old), { recursive: true, mode: 0o700 });
    writeFileSync(old, `${claim.body.agent_token}\n`, { mode: 0o600 });
    const again = await cli(['send', '--as', 'oldie', '--room', 'general', '--url', b.url, 'still me'], { cwd: home, env });
    assert.is(again.code, 0, again.stderr);
    assert.ok(existsSync(path.join(home, '.svc', 'agents', `home@${uid}`, 'oldie.token')));
  } finally {
    await b.dispose();
  }
});

test('with its server stopped, a config finds the tokens kept beside it by its network identity', async () => {
  const s = await startApp({
    config: {
      network: { id: 'home', name: 'Home' },
      // A fixed port: with port 0 a stopped server's address is not known at all.
      server: { listen_addr: `127.0.0.1:${await freePort()}` },
      auth: { mode: 'open', agent_registration: 'open', tokens: [] },
    },
  });
  try {
    const reg = await cli(['agents', 'register', '--id', 'zed', '--config', s.configFile]);
    assert.is(reg.code, 0, reg.stderr);
    const kept = path.join(s.dir, '.svc', 'agents', `home@${await uidOf(s)}`, 'zed.token');
    assert.ok(existsSync(kept), reg.stdout);
    await s.stop();
    const token = await cli(['agents', 'token', 'zed', '--config', s.configFile]);
    assert.is(token.code, 0, token.stderr);
    assert.is(token.stdout, readFileSync(kept, 'utf8'));
  } finally {
    await s.dispose();
  }
});

test.run();
