// svc tail as a process against a server in the test process: live events, filters, --json, --since, and
// resuming (Last-Event-ID) after the server restarts on the same address.

import type { ChildProcess } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp } from '../helpers/app.js';
import { eventually, type HttpServer, roomMessage, TOKENS } from '../helpers/server.js';
import { cli, deadUrl, freePort, spawnCli } from '../helpers/cli.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;

interface Tail {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** stdout lines parsed as JSON (for --json). */
  events(): { id: string; type: string; message?: { parts: { text?: string }[] } }[];
  exit: Promise<number | null>;
  stop(): Promise<number | null>;
}

function tail(args: string[], env: Record<string, string> = { SVC_TOKEN: ADMIN }): Tail {
  const proc = spawnCli(['tail', ...args], { env });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    events: () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    exit,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGINT');
      return exit;
    },
  };
}

const textOf = (e: { message?: { parts: { text?: string }[] } }) => e.message?.parts.map((p) => p.text ?? '').join('') ?? '';

interface Ctx {
  s: HttpServer;
  running: Tail[];
  open: (args: string[], env?: Record<string, string>) => Promise<Tail>;
  say: (room: string, text: string) => Promise<string>;
}

const t = suite<Ctx>('svc tail against a running server');
t.before(async (ctx) => {
  // A fixed port, so that a restarted server comes back where the stream was.
  const port = await freePort();
  ctx.s = await startApp({
    config: {
      server: { listen_addr: `127.0.0.1:${port}` },
      rooms: [
        { id: 'general', members: ['alpha'] },
        { id: 'ops', members: ['alpha'] },
      ],
    },
  });
  ctx.running = [];
  ctx.open = async (args, env) => {
    const tl = tail(['--url', ctx.s.url, ...args], env);
    ctx.running.push(tl);
    await eventually(() => /following events of network testnet/.test(tl.stderr()) || tl.proc.exitCode !== null, 15_000, 'tail to connect');
    assert.is(tl.proc.exitCode, null, `tail exited early: ${tl.stderr()}`);
    return tl;
  };
  ctx.say = async (room, text) => {
    const r = await ctx.s.post('/v1/messages', roomMessage(room, 'alpha', text), ALPHA);
    assert.is(r.status, 200, r.text);
    return r.body.event_id as string;
  };
});
t.after.each(async (ctx) => {
  await Promise.all(ctx.running.map((tl) => tl.stop()));
  ctx.running = [];
});
t.after(async (ctx) => ctx.s.dispose());

t('--json prints a live event as one envelope per line; Ctrl-C exits 0', async ({ open, say }) => {
  const tl = await open(['--json']);
  const eventId = await say('general', 'hello live');
  const e = (await eventually(
    () => tl.events().find((x) => x.type === 'message.created' && textOf(x) === 'hello live'),
    10_000,
    'the event',
  ))!;
  assert.is(e.id, eventId);
  assert.is(tl.stdout().split('\n').filter(Boolean).length, tl.events().length, 'every stdout line is one JSON event');
  assert.is(await tl.stop(), 0);
});

t('human lines show time, type, room, sender and text; --room and --type filter', async ({ open, say }) => {
  const tl = await open(['--room', 'ops', '--type', 'message.*']);
  await say('general', 'not for ops');
  await say('ops', 'for ops');
  await eventually(() => /for ops/.test(tl.stdout()), 10_000, 'the ops line');
  assert.match(tl.stdout(), /^\d\d:\d\d:\d\d {2}message\.created\s+#ops alpha: for ops$/m);
  // Events arrive in order: the general message came first and was filtered out.
  assert.not.match(tl.stdout(), /not for ops/);
  assert.not.match(tl.stdout(), /\x1b\[/, 'no colour when not a TTY');
});

t('--since replays what came after that event id (Last-Event-ID)', async ({ s, say }) => {
  const first = await say('general', 'before one');
  await say('general', 'before two');
  const tl = tail(['--url', s.url, '--json', '--since', first, '--type', 'message.created', '--count', '1']);
  assert.is(await tl.exit, 0, tl.stderr());
  assert.equal(tl.events().map(textOf), ['before two']);
});

t('resumes after the server restarts: events are not lost or repeated', async ({ s, open, say }) => {
  const tl = await open(['--json', '--type', 'message.created']);
  await say('general', 'before restart');
  await eventually(() => tl.events().some((e) => textOf(e) === 'before restart'), 10_000, 'the first event');
  await s.restart();
  await say('general', 'after restart');
  await eventually(() => tl.events().some((e) => textOf(e) === 'after restart'), 20_000, 'the event after the restart');
  assert.match(tl.stderr(), /svc tail: stream lost \(.*\); reconnecting/);
  assert.match(tl.stderr(), /svc tail: reconnected; resuming after event \S+/);
  const texts = tl.events().map(textOf);
  assert.is(texts.filter((x) => x === 'before restart').length, 1, texts.join(', '));
  assert.is(tl.proc.exitCode, null, 'still following');
});

t('a missing or rejected token exits 1 with the 401 line', async ({ s }) => {
  const [none, wrong] = await Promise.all([
    cli(['tail', '--url', s.url]),
    cli(['tail', '--url', s.url], { env: { SVC_TOKEN: 'nope-nope' } }),
  ]);
  assert.is(none.code, 1);
  assert.match(
    none.stderr,
    /^svc tail: 401 unauthorized: .*; no token was sent \(no --token, no SVC_TOKEN, .*or pass --token \(env SVC_TOKEN\)\n$/,
  );
  assert.is(wrong.code, 1);
  assert.match(wrong.stderr, /the token in SVC_TOKEN was refused by .*unset SVC_TOKEN/);
});

t.run();

const none = suite('svc tail with no server');
none('says no server runs at the URL, exit 1', async () => {
  const url = await deadUrl();
  const r = await cli(['tail', '--url', url]);
  assert.is(r.code, 1);
  assert.match(
    r.stderr,
    /^svc tail: no svc server is running at http:\/\/127\.0\.0\.1:\d+ \(connection refused\); start it with `svc serve`/,
  );
});
none.run();
