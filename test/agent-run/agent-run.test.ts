// `svc agent run` as a process against a real server, with a small node script as the command: one
// run and one reply per wake in the right conversation, batching, crash recovery and the timeout.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runsOf, startAgentRun, writeBot, type AgentRunProc } from '../helpers/agent-run.js';
import { eventually, startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { claimThenJoin } from '../helpers/claim.js';
import { replyIdOf } from '../../src/agent-run/prompt.js';

interface Ctx {
  s: TestServer;
  dir: string;
  bot: string;
  procs: AgentRunProc[];
}

const t = suite<Ctx>('svc agent run');
const ADMIN = TOKENS.admin.value;

t.before(async (ctx) => {
  ctx.s = await startServer({
    config: {
      auth: { agent_registration: 'open' },
      // ada joins once claimed (the first test): a declared member's id is reserved for the operator's credentials.
      rooms: [{ id: 'general', name: 'General', members: ['beta', 'bob', 'carol', 'dora', 'erin', 'fred'], write_policy: 'members' }],
    },
  });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-agent-run-'));
  ctx.bot = writeBot(ctx.dir);
  ctx.procs = [];
});
t.after.each(async (ctx) => {
  await Promise.all(ctx.procs.splice(0).map((p) => p.stop()));
});
t.after(async ({ s, dir }) => {
  await s.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const send = async (s: TestServer, body: Record<string, Json>) => {
  const r = await s.post('/v1/messages', { from: { type: 'agent', id: 'beta' }, ...body }, ADMIN);
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
};
const room = (text: string, mentions: string[] = []) => ({
  target: { kind: 'room', room_id: 'general' },
  parts: [{ kind: 'text', text }],
  mentions,
});
const messages = async (s: TestServer, p: string) => ((await s.get(p, ADMIN)).body.messages ?? []) as Json[];
const by = (ms: Json[], id: string) => ms.filter((m) => m.from.id === id);

async function run(ctx: Ctx, name: string, args: string[], env: Record<string, string> = {}) {
  const runs = path.join(ctx.dir, `${name}.runs`);
  const p = await startAgentRun(
    ['--url', ctx.s.url, '--state-dir', path.join(ctx.dir, `${name}-state`), ...args, '--', process.execPath, ctx.bot],
    { RUNS_FILE: runs, ...env },
    ctx.dir,
  );
  ctx.procs.push(p);
  return { p, runs };
}

t('a mention and a DM each produce one run and one reply in their conversation; other messages none', async (ctx) => {
  const { s } = ctx;
  // ada's own agent token (a first claim under open registration), which names its agent.
  const claim = await claimThenJoin(s, 'ada', ['general'], 'Alpha');
  const { p, runs } = await run(ctx, 'ada', [], { SVC_TOKEN: claim.body.agent_token, REPLY_TEXT: 'on it' });
  assert.match(p.stderr(), /attached as ada to network testnet/, 'the agent token names its agent');
  await send(s, room('nobody is mentioned here'));
  const inRoom = await send(s, room('@ada status?'));
  const inThread = await send(s, {
    target: { kind: 'thread', room_id: 'general', thread_id: 'incident-1' },
    parts: [{ kind: 'text', text: '@ada look at this' }],
  });
  const dm = await send(s, { target: { kind: 'dm', participant_ids: ['ada'] }, parts: [{ kind: 'text', text: 'a private question' }] });

  await eventually(async () => by(await messages(s, '/v1/rooms/general/messages'), 'ada').length === 1, 20_000, 'the room reply');
  await eventually(async () => by(await messages(s, '/v1/threads/incident-1/messages'), 'ada').length === 1, 20_000, 'the thread reply');
  const dmId = (await s.get('/v1/dms', ADMIN)).body.dms[0].id as string;
  await eventually(async () => by(await messages(s, `/v1/dms/${dmId}/messages`), 'ada').length === 1, 20_000, 'the DM reply');

  // Runs of different conversations may run side by side: compare them in conversation order.
  const order = ['room:general', 'thread:incident-1', `dm:${dmId}`];
  const r = runsOf(runs).sort((a, b) => order.indexOf(a.conv) - order.indexOf(b.conv));
  assert.equal(
    r.map((x) => x.ids),
    [inRoom, inThread, dm],
    'one run per wake, none for the unmentioned message',
  );
  assert.equal(
    r.map((x) => x.conv),
    ['room:general', 'thread:incident-1', `dm:${dmId}`],
  );
  assert.equal(
    r.map((x) => x.key),
    ['service:testnet:room:general', 'service:testnet:thread:incident-1', `service:testnet:dm:${dmId}`],
  );
  assert.match(r[0]!.prompt, /Recent messages, oldest first:\n\[[^\]]+\] beta \(id \S+\): nobody is mentioned here/);
  assert.match(r[0]!.prompt, /New message for you:\n\[[^\]]+\] beta \(id \S+\): @ada status\?/);

  const roomReply = by(await messages(s, '/v1/rooms/general/messages'), 'ada')[0];
  assert.is(roomReply.parts[0].text, 'on it');
  assert.is(roomReply.id, r[0]!.reply, 'posted with the id the run was given');
  assert.is(by(await messages(s, '/v1/threads/incident-1/messages'), 'ada')[0].target.kind, 'thread');
  assert.is(by(await messages(s, `/v1/dms/${dmId}/messages`), 'ada')[0].target.kind, 'dm');
  await p.waitLog(new RegExp(`run dm:${dmId} \\(1 wake: ${dm}\\) exit 0 in \\S+; replied re-ada-`));
  assert.match(p.stderr(), new RegExp(`run room:general \\(1 wake: ${inRoom}\\) exit 0 in \\S+; replied re-ada-`));
});

t('wakes that arrive during a slow run are batched into the next run', async (ctx) => {
  const { s } = ctx;
  const { p, runs } = await run(ctx, 'bob', ['--agent', 'bob', '--json'], { SVC_TOKEN: ADMIN, DELAY_MS: '1500' });
  const first = await send(s, room('@bob first'));
  await eventually(() => runsOf(runs).length === 1, 20_000, 'the first run to start');
  const second = await send(s, room('@bob second'));
  const third = await send(s, room('@bob third'));
  await eventually(async () => by(await messages(s, '/v1/rooms/general/messages'), 'bob').length === 2, 30_000, 'two replies');
  const r = runsOf(runs);
  assert.equal(
    r.map((x) => x.ids),
    [first, `${second},${third}`],
  );
  assert.match(r[1]!.prompt, /New messages for you \(2\):\n.*@bob second\n.*@bob third/);
  await new Promise((res) => setTimeout(res, 500));
  assert.is(runsOf(runs).length, 2, 'no third run');
  // --json: one record per run on stdout.
  const records = p
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  assert.equal(
    records.map((r) => [r.conversation, r.message_ids, r.exit_code, r.reply]),
    [
      ['room:general', [first], 0, 'posted'],
      ['room:general', [second, third], 0, 'posted'],
    ],
  );
  assert.ok(records.every((r) => r.duration_ms >= 1500 && /^re-bob-/.test(r.reply_id)));
});

t('a SIGKILL mid-run re-delivers the wake on restart and the reply is posted once', async (ctx) => {
  const { s } = ctx;
  const args = ['--agent', 'carol'];
  const first = await run(ctx, 'carol', args, { SVC_TOKEN: ADMIN, DELAY_MS: '60000' });
  const wake = await send(s, room('@carol are you there?'));
  await eventually(() => runsOf(first.runs).length === 1, 20_000, 'the run to start');
  await first.p.kill9();
  process.kill(runsOf(first.runs)[0]!.pid, 'SIGKILL'); // the orphaned command, so it cannot finish later
  assert.is(by(await messages(s, '/v1/rooms/general/messages'), 'carol').length, 0);

  const again = await run(ctx, 'carol', args, { SVC_TOKEN: ADMIN, DELAY_MS: '0' });
  await eventually(
    async () => by(await messages(s, '/v1/rooms/general/messages'), 'carol').length === 1,
    20_000,
    'the reply after the restart',
  );
  const r = runsOf(again.runs);
  assert.equal(
    r.map((x) => x.ids),
    [wake, wake],
    'the wake ran again after the crash',
  );
  assert.is(r[0]!.reply, r[1]!.reply, 'with the same reply id');
  await again.p.stop();

  // A third start: the wake is acknowledged now, nothing runs, nothing is posted again.
  const third = await run(ctx, 'carol', args, { SVC_TOKEN: ADMIN });
  await send(s, room('@carol second question'));
  await eventually(async () => by(await messages(s, '/v1/rooms/general/messages'), 'carol').length === 2, 20_000, 'the next reply');
  assert.equal(
    runsOf(third.runs)
      .map((x) => x.ids)
      .slice(2),
    [runsOf(third.runs).at(-1)!.ids],
  );
  assert.is(runsOf(third.runs).filter((x) => x.ids === wake).length, 2);
});

t('a wake whose reply is stored never runs again, even when a slower conversation held the cursor back', async (ctx) => {
  const { s } = ctx;
  const args = ['--agent', 'erin'];
  const first = await run(ctx, 'erin', args, { SVC_TOKEN: ADMIN, DELAY_MS: '60000', SLOW_CONV: 'thread:slow-1' });
  const slow = await send(s, {
    target: { kind: 'thread', room_id: 'general', thread_id: 'slow-1' },
    parts: [{ kind: 'text', text: '@erin think hard' }],
  });
  await eventually(() => runsOf(first.runs).length === 1, 20_000, 'the slow run to start');
  const quick = await send(s, room('@erin quick one'));
  await first.p.waitLog(new RegExp(`run room:general \\(1 wake: ${quick}\\) exit 0 in \\S+; replied`), 20_000);
  // The slow wake is unfinished, so the stored cursor is still before both wakes.
  await first.p.kill9();
  process.kill(runsOf(first.runs)[0]!.pid, 'SIGKILL');

  const again = await run(ctx, 'erin', args, { SVC_TOKEN: ADMIN, DELAY_MS: '0' });
  await eventually(
    async () => by(await messages(s, '/v1/threads/slow-1/messages'), 'erin').length === 1,
    20_000,
    'the slow reply after the restart',
  );
  await new Promise((res) => setTimeout(res, 500));
  assert.equal(
    runsOf(again.runs).map((x) => x.ids),
    [slow, quick, slow],
    'the quick wake ran once',
  );
  assert.is(by(await messages(s, '/v1/rooms/general/messages'), 'erin').length, 1, 'and was answered once');
});

t('a redelivered wake whose reply was posted before a crash does not run; a live wake runs before its context is read', async (ctx) => {
  const { s } = ctx;
  const args = ['--agent', 'fred'];
  await (await run(ctx, 'fred-first', args, { SVC_TOKEN: ADMIN })).p.stop(); // its cursor is stored
  // The server has seen the socket close: a wake sent before that would go to the closing attachment.
  await eventually(async () => (await s.get('/v1/agents/fred/delivery', ADMIN)).body.attached === false, 10_000, 'fred detached');
  // What a crash between the reply and the bookkeeping leaves: a wake never acknowledged, its reply stored.
  const wake = await send(s, room('@fred answered before the crash'));
  const stored = await s.post(
    '/v1/messages',
    { id: replyIdOf('fred', [wake]), from: { type: 'agent', id: 'fred' }, ...room('the reply') },
    ADMIN,
  );
  assert.is(stored.status, 200, stored.text);
  const { p, runs } = await run(ctx, 'fred-first', args, { SVC_TOKEN: ADMIN });
  await p.waitLog(new RegExp(`run room:general \\(1 wake: ${wake}\\) skipped: its reply re-fred-\\S+ is already stored`));
  assert.equal(runsOf(runs), [], 'the command did not run');

  const live = await send(s, room('@fred a new one'));
  await eventually(() => runsOf(runs).length === 1, 20_000, 'the live run');
  assert.is(runsOf(runs)[0]!.ids, live);
  // Its prompt still carries the context, written to stdin once read.
  assert.match(runsOf(runs)[0]!.prompt, /Recent messages, oldest first:\n(.*\n)*.*fred \(id \S+\): the reply/);
  await p.waitLog(new RegExp(`run room:general \\(1 wake: ${live}\\) exit 0`));
});

t('the timeout kills a hanging command and says so', async (ctx) => {
  const { s } = ctx;
  const { p, runs } = await run(ctx, 'dora', ['--agent', 'dora', '--timeout', '1s'], { SVC_TOKEN: ADMIN, DELAY_MS: '600000' });
  const wake = await send(s, room('@dora this will hang'));
  const line = await p.waitLog(/timed out/, 30_000);
  assert.match(
    line,
    new RegExp(
      `^svc agent run: run room:general \\(1 wake: ${wake}\\) timed out in \\S+; no reply; timed out after 1\\.0s: the command was killed$`,
    ),
  );
  const pid = runsOf(runs)[0]!.pid;
  await eventually(
    () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    10_000,
    'the command to be gone',
  );
  assert.is(by(await messages(s, '/v1/rooms/general/messages'), 'dora').length, 0, 'no reply');
});

t('refuses to start without a command, and names the agent when the token cannot', async (ctx) => {
  const { cli } = await import('../helpers/cli.js');
  const none = await cli(['agent', 'run', '--url', ctx.s.url, '--agent', 'x'], { env: { SVC_TOKEN: ADMIN } });
  assert.is(none.code, 2);
  assert.is(none.stderr, 'svc agent run: give the COMMAND to run after --, or --runtime claude|codex\n');
  const who = await cli(['agent', 'run', '--url', ctx.s.url, '--', 'true'], { env: { SVC_TOKEN: ADMIN } });
  assert.is(who.code, 2);
  assert.match(who.stderr, /^svc agent run: --agent: name the agent to act as/);
});

t.run();
