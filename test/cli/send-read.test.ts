// svc send and svc read run as processes against a real server: targets, senders, stdin, --json,
// exit codes and one-line errors.

import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cli, type CliResult, MEMORY_STORE } from '../helpers/cli.js';
import { SVC_BIN, startServer, TOKENS, type TestServer } from '../helpers/server.js';

interface Ctx {
  s: TestServer;
  as: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
}

const t = suite<Ctx>('svc send and svc read');

t.before(async (ctx) => {
  ctx.s = await startServer({
    config: { store: MEMORY_STORE, rooms: [{ id: 'general', name: 'General', members: ['delta', 'beta'], write_policy: 'members' }] },
  });
  ctx.as = (args, env = {}) => cli([...args, '--url', ctx.s.url], { env: { SVC_TOKEN: TOKENS.admin.value, ...env } });
});
t.after(async ({ s }) => s.dispose());

/** Runs `svc ...args` with `input` on stdin. */
function withStdin(args: string[], input: string, env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [SVC_BIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.once('error', reject);
    p.once('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(input);
  });
}

t('sends to a room as an agent and as a person, and read shows both oldest first', async ({ s, as }) => {
  const a = await as(['send', '--room', 'general', '--as', 'delta', 'deploy', 'finished,', '@beta', 'please', 'verify']);
  assert.is(a.code, 0, a.stderr);
  assert.match(a.stdout, /^sent \S+ to #general\n$/);
  const h = await as(['send', '--room', 'general', '--human', 'ops', '--json', 'thanks']);
  assert.is(h.code, 0, h.stderr);
  const res = JSON.parse(h.stdout);
  assert.is(res.accepted, true);

  const hist = (await s.get('/v1/rooms/general/messages', TOKENS.admin.value)).body.messages;
  assert.is(hist[0].from.id, 'delta');
  assert.is(hist[0].from.type, 'agent');
  assert.equal(hist[0].mentions, ['svc://testnet/agents/beta']);
  assert.is(hist[1].from.type, 'human');
  assert.is(hist[1].id, res.message_id);

  const r = await as(['read', '--room', 'general']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^TIME\s+FROM\s+ID\s+TEXT$/);
  assert.match(lines[1]!, /delta\s+\S+\s+deploy finished, @beta please verify$/);
  assert.match(lines[2]!, /ops\s+\S+\s+thanks$/);
  const j = JSON.parse((await as(['read', '--room', 'general', '--json', '--limit', '1'])).stdout);
  assert.is(j.messages.length, 1);
  assert.is(j.messages[0].parts[0].text, 'thanks');
  assert.is(j.page.has_more, true);
});

t('reads the text from stdin with -, and starts a thread under a message', async ({ s }) => {
  const parent = (await s.get('/v1/rooms/general/messages', TOKENS.admin.value)).body.messages[0].id;
  const r = await withStdin(
    ['send', '--url', s.url, '--room', 'general', '--thread', 'verify-1', '--parent', parent, '--as', 'beta', '-'],
    'line one\nline two\n',
    { SVC_TOKEN: TOKENS.admin.value },
  );
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /to #general\/verify-1 \(new thread\)/);
  const t1 = await s.get('/v1/threads/verify-1/messages', TOKENS.admin.value);
  assert.is(t1.body.messages[0].parts[0].text, 'line one\nline two');
  assert.is(t1.body.messages[0].target.parent_message_id ?? parent, parent);
  const read = await cli(['read', '--url', s.url, '--thread', 'verify-1'], { env: { SVC_TOKEN: TOKENS.admin.value } });
  assert.is(read.code, 0, read.stderr);
  assert.match(read.stdout, /beta\s+\S+\s+line one ⏎ line two/);

  const empty = await withStdin(['send', '--url', s.url, '--room', 'general', '-'], '', { SVC_TOKEN: TOKENS.admin.value });
  assert.is(empty.code, 2);
  assert.is(empty.stderr, 'svc send: stdin was empty: nothing to send\n');
});

t('sends a DM to agents and reads it back by participants or by id; --id makes a retry a no-op', async ({ as }) => {
  const first = await as(['send', '--dm', 'beta', '--as', 'delta', '--id', 'dm-hello-1', '--json', 'hello beta']);
  assert.is(first.code, 0, first.stderr);
  const one = JSON.parse(first.stdout);
  assert.is(one.dm_created, true);
  const again = JSON.parse((await as(['send', '--dm', 'beta', '--as', 'delta', '--id', 'dm-hello-1', '--json', 'hello beta'])).stdout);
  assert.is(again.message_id, 'dm-hello-1');
  assert.is(again.dm_created, false);
  const byAgents = JSON.parse((await as(['read', '--dm', 'delta,beta', '--json'])).stdout);
  assert.equal(
    byAgents.messages.map((m: { id: string }) => m.id),
    ['dm-hello-1'],
  );
  const dmId = byAgents.messages[0].target.dm_id as string;
  const byId = await as(['read', '--dm', dmId]);
  assert.is(byId.code, 0, byId.stderr);
  assert.match(byId.stdout, /delta\s+dm-hello-1\s+hello beta/);
});

t('wrong flags are usage errors (exit 2), server refusals one line (exit 1)', async ({ s, as }) => {
  const nowhere = await as(['send', 'hi']);
  assert.is(nowhere.code, 2);
  assert.is(nowhere.stderr, 'svc send: say where: --room R, --room R --thread T, or --dm AGENT\n');
  const two = await as(['read', '--room', 'general', '--dm', 'beta']);
  assert.is(two.code, 2);
  assert.match(two.stderr, /^svc read: say what to read: exactly one of/);
  const agentToken = await cli(['send', '--url', s.url, '--room', 'general', 'hi'], { env: { SVC_TOKEN: 'agt_v1_x' } });
  assert.is(agentToken.code, 2);
  assert.is(agentToken.stderr, 'svc send: an agent token sends as its agent: pass --as AGENT_ID\n');
  const refused = await as(['send', '--room', 'general', '--as', 'delta', 'hi'], { SVC_TOKEN: TOKENS.observer.value });
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /^svc send: 403 forbidden: .+\n$/);
  assert.is(refused.stderr.split('\n').length, 2, 'one line');
  const missing = await as(['read', '--room', 'nope']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^svc read: 404 not_found: /);
});

t.run();
