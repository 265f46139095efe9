// svc send, svc read and svc search run as processes against one real server: targets, senders,
// stdin, --json, exit codes and one-line errors; then search's lines, filters, --json, paging hint
// and exit codes.

import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cli, type CliResult, MEMORY_STORE } from '../helpers/cli.js';
import { roomMessage, SVC_BIN, startServer, TOKENS, type TestServer } from '../helpers/server.js';

interface Ctx {
  s: TestServer;
  as: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
}

const t = suite<Ctx>('svc send and svc read');

/** One server for both suites (the second one's `after` stops it): the rooms of each. */
let server: Promise<TestServer> | undefined;
const shared = () =>
  (server ??= startServer({
    config: {
      store: MEMORY_STORE,
      rooms: [
        { id: 'general', name: 'General', members: ['delta', 'beta'], write_policy: 'members' },
        { id: 'ops', members: ['ann', 'bob'] },
        { id: 'random', members: ['bob'] },
      ],
    },
  }));

t.before(async (ctx) => {
  ctx.s = await shared();
  ctx.as = (args, env = {}) => cli([...args, '--url', ctx.s.url], { env: { SVC_TOKEN: TOKENS.admin.value, ...env } });
});

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

const ADMIN = TOKENS.admin.value;

interface SearchCtx {
  s: TestServer;
  as: (args: string[], env?: Record<string, string>) => ReturnType<typeof cli>;
  ids: string[];
}

// Its words (migration, zeppelin) are in none of the messages the suite above sent.
const q = suite<SearchCtx>('svc search against a running server');
q.before(async (c) => {
  c.s = await shared();
  c.as = (args, env = {}) => cli([...args, '--url', c.s.url], { env: { SVC_TOKEN: ADMIN, ...env } });
  c.ids = [];
  for (const [room, from, text] of [
    ['ops', 'ann', 'the migration plan is ready'],
    ['random', 'bob', 'lunch, then the migration'],
    ['ops', 'bob', 'migration done\nall green'],
  ] as const) {
    const r = await c.s.post('/v1/messages', roomMessage(room, from, text), ADMIN);
    assert.is(r.status, 200, r.text);
    c.ids.push(r.body.message_id);
  }
});
q.after(async (c) => c.s?.dispose());

q('prints one line per match, newest first: time, place, sender, snippet and id', async ({ as, ids }) => {
  const r = await as(['search', 'migration']);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines.length, 3);
  assert.match(lines[0]!, new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  #ops  bob: \\*\\*migration\\*\\* done all green  ${ids[2]}$`));
  assert.match(lines[1]!, / {2}#random {2}bob: lunch, then the \*\*migration\*\* {2}/);
  assert.match(lines[2]!, / {2}#ops {2}ann: the \*\*migration\*\* plan is ready {2}/);
  assert.not.match(r.stdout, /\x1b\[/, 'no colour when stdout is not a TTY');
});

q('several words, --room and --from narrow the search', async ({ as, ids }) => {
  const both = await as(['search', 'migration', 'plan']);
  assert.is(both.code, 0, both.stderr);
  assert.is(both.stdout.trimEnd().split('\n').length, 1);
  assert.ok(both.stdout.includes(ids[0]!));
  const room = JSON.parse((await as(['search', 'migration', '--room', 'ops', '--json'])).stdout);
  assert.equal(
    room.messages.map((m: { id: string }) => m.id),
    [ids[2], ids[0]],
  );
  const from = JSON.parse((await as(['search', 'migr', '--from', 'bob', '--room', 'random', '--json'])).stdout);
  assert.equal(
    from.messages.map((m: { id: string }) => m.id),
    [ids[1]],
  );
});

q('--json prints the API answer, snippets included', async ({ as, ids }) => {
  const r = await as(['search', 'migration', '--json']);
  assert.is(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.equal(body.page, { has_more: false });
  assert.is(body.messages[0].id, ids[2]);
  assert.is(body.messages[0].snippet, '**migration** done all green');
});

q('--limit pages, and the hint names the next cursor', async ({ as, ids }) => {
  const r = await as(['search', 'migration', '--limit', '2']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`older matches: run again with --before ${ids[1]}`));
  const next = await as(['search', 'migration', '--limit', '2', '--before', ids[1]!, '--json']);
  assert.equal(
    JSON.parse(next.stdout).messages.map((m: { id: string }) => m.id),
    [ids[0]],
  );
});

q('no match is a friendly line and exit 0', async ({ as }) => {
  const r = await as(['search', 'zeppelin']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim(), 'no messages match "zeppelin"');
});

q('refusals are one line on stderr: no words is a usage error, bad input and missing scope fail', async ({ as }) => {
  const none = await as(['search']);
  assert.is(none.code, 2);
  assert.match(none.stderr, /missing required argument 'words'/);
  const punct = await as(['search', '!!!']);
  assert.is(punct.code, 1);
  assert.match(punct.stderr, /^svc search: .*query\.q: must contain at least one word/);
  assert.is(punct.stderr.trim().split('\n').length, 1);
  const writer = await as(['search', 'migration'], { SVC_TOKEN: TOKENS.writer.value });
  assert.is(writer.code, 1);
  assert.match(writer.stderr, /^svc search: /);
  assert.not.match(writer.stderr, /\n\s+at /, 'no stack trace');
});

q.run();
