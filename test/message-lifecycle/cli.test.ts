// svc edit, svc delete and svc versions run as processes against a real server, the app in the test
// process (#40 parts 1 and 2): the sender edits (text from the arguments or stdin, --mention,
// --json), an operator edits without naming a sender, a stale --expect-version and someone else's
// message are refused with one line and exit 1, svc versions lists what the edits replaced, svc
// read marks edits and tombstones, and a delete leaves a tombstone that a second delete answers
// unchanged and an edit cannot touch; svc tail prints message.edited, message.deleted and
// message.redacted events. svc redact (#40 part 3): an operator's redaction, asked on a terminal
// (driven through script(1)), refused without --yes when stdin is not one, refused to a
// non-operator, and saying whether the store's scrub is done.

import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cli, scriptBin, spawnCli, type CliResult } from '../helpers/cli.js';
import { roomMessage, SVC_BIN, TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;

interface Ctx {
  s: AppServer;
  /** Runs `svc ...args --url URL` as alpha's credential unless `env` says otherwise. */
  as: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
}

const t = suite<Ctx>('svc edit, svc delete, svc versions');

t.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', members: ['alpha', 'beta'] }] } });
  const reg = await ctx.s.post('/v1/agents/register', { requested_agent_id: 'beta' }, ADMIN);
  assert.is(reg.status, 200, reg.text);
  ctx.as = (args, env = {}) => cli([...args, '--url', ctx.s.url], { env: { SVC_TOKEN: ALPHA, ...env } });
});
t.after(async ({ s }) => s.dispose());

async function say(s: HttpServer, text: string): Promise<string> {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', text), ALPHA);
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

async function stored(s: HttpServer, id: string): Promise<Json> {
  const r = await s.get('/v1/rooms/general/messages?limit=100', ADMIN);
  assert.is(r.status, 200, r.text);
  return r.body.messages.find((m: Json) => m.id === id);
}

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

t('the sender edits with --as; the message changes in place and svc read marks it edited', async ({ s, as }) => {
  const id = await say(s, 'deploy finished');
  const r = await as(['edit', id, '--as', 'alpha', 'deploy', 'finished,', 'v2', 'is', 'live']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, `edited ${id}: now version 2 (earlier versions: svc versions ${id})\n`);
  assert.is(r.stderr, '');
  const m = await stored(s, id);
  assert.equal(m.parts, [{ kind: 'text', text: 'deploy finished, v2 is live' }]);
  assert.is(m.version, 2);
  assert.type(m.edited_at, 'string');
  const read = await as(['read', '--room', 'general']);
  assert.is(read.code, 0, read.stderr);
  assert.match(read.stdout, new RegExp(`${id} +deploy finished, v2 is live \\(edited\\)\\n`));
});

t('text from stdin with -, --mention and --json; svc versions lists what the edits replaced', async ({ s, as }) => {
  const id = await say(s, 'first words');
  const env = { SVC_URL: s.url, SVC_TOKEN: ALPHA };
  const a = await withStdin(['edit', id, '--as', 'alpha', '-'], 'second words\n', env);
  assert.is(a.code, 0, a.stderr);
  const b = await withStdin(['edit', id, '--as', 'alpha', '--mention', 'beta', '--json', '-'], 'third words\n', env);
  assert.is(b.code, 0, b.stderr);
  const edited = JSON.parse(b.stdout);
  assert.is(edited.id, id);
  assert.is(edited.version, 3);
  assert.equal(edited.parts, [{ kind: 'text', text: 'third words' }]);
  assert.equal(edited.mentions, ['svc://testnet/agents/beta']);

  const v = await as(['versions', id]);
  assert.is(v.code, 0, v.stderr);
  const lines = v.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^VERSION +TIME +TEXT$/);
  assert.match(lines[1]!, /^1 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ +first words$/);
  assert.match(lines[2]!, /^2 +\S+ \S+ +second words$/);
  assert.is(lines[3], 'current: version 3 (svc read shows it)');
  assert.is(lines.length, 4);
  const j = await as(['versions', id, '--json']);
  assert.is(j.code, 0, j.stderr);
  const body = JSON.parse(j.stdout);
  assert.is(body.message_id, id);
  assert.is(body.version, 3);
  assert.equal(
    body.items.map((x: Json) => [x.version, x.parts[0].text]),
    [
      [1, 'first words'],
      [2, 'second words'],
    ],
  );
  const never = await as(['versions', await say(s, 'untouched')]);
  assert.is(never.code, 0, never.stderr);
  assert.match(never.stdout, /^msg_\S+ was never edited \(version 1\)\n$/);
});

t('an operator edits without naming a sender; a stale --expect-version is refused with one line', async ({ s, as }) => {
  const id = await say(s, 'typo heer');
  const op = await as(['edit', id, 'typo here'], { SVC_TOKEN: ADMIN });
  assert.is(op.code, 0, op.stderr);
  assert.match(op.stdout, /now version 2/);
  assert.equal((await stored(s, id)).parts, [{ kind: 'text', text: 'typo here' }]);
  const stale = await as(['edit', id, '--as', 'alpha', '--expect-version', '1', 'late']);
  assert.is(stale.code, 1);
  assert.is(stale.stdout, '');
  assert.match(stale.stderr, /^svc edit: 409 conflict: .*version 2, not 1/);
  assert.not.match(stale.stderr, /pick another id/);
  assert.is(stale.stderr.trim().split('\n').length, 1);
  const fresh = await as(['edit', id, '--as', 'alpha', '--expect-version', '2', 'on time']);
  assert.is(fresh.code, 0, fresh.stderr);
  assert.match(fresh.stdout, /now version 3/);
});

t('someone else’s message, an unknown id and wrong usage fail with their exit codes', async ({ s, as }) => {
  const id = await say(s, 'mine');
  const other = await as(['edit', id, '--as', 'beta', 'not yours'], { SVC_TOKEN: ADMIN });
  assert.is(other.code, 1);
  assert.match(other.stderr, /^svc edit: 403 forbidden: only the sender of message/);
  const otherDelete = await as(['delete', id, '--as', 'beta'], { SVC_TOKEN: ADMIN });
  assert.is(otherDelete.code, 1);
  assert.match(otherDelete.stderr, /^svc delete: 403 forbidden: only the sender/);
  assert.equal((await stored(s, id)).parts, [{ kind: 'text', text: 'mine' }]);
  const missing = await as(['delete', 'msg_nosuch', '--as', 'alpha']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^svc delete: 404 not_found: message msg_nosuch not found/);
  const missingVersions = await as(['versions', 'msg_nosuch']);
  assert.is(missingVersions.code, 1);
  assert.match(missingVersions.stderr, /^svc versions: 404/);
  assert.is((await as(['edit', id])).code, 2);
  assert.is((await as(['edit', id, '--as', 'alpha', '--human', 'ops', 'x'])).code, 2);
  assert.is((await as(['edit', id, '--as', 'alpha', '--expect-version', '0', 'x'])).code, 2);
  assert.is((await as(['delete'])).code, 2);
});

t('svc delete leaves a tombstone: read marks it, a second delete answers it, an edit is refused', async ({ s, as }) => {
  const id = await say(s, 'wrong result: 42');
  const d = await as(['delete', id, '--as', 'alpha']);
  assert.is(d.code, 0, d.stderr);
  assert.is(d.stdout, `deleted ${id}: a tombstone stays in its place\n`);
  const m = await stored(s, id);
  assert.equal(m.parts, []);
  assert.type(m.deleted_at, 'string');
  const read = await as(['read', '--room', 'general']);
  assert.match(read.stdout, new RegExp(`${id} +\\(deleted\\)\\n`));
  assert.not.match(read.stdout, /wrong result/);
  const again = await as(['delete', id, '--json'], { SVC_TOKEN: ADMIN });
  assert.is(again.code, 0, again.stderr);
  const tomb = JSON.parse(again.stdout);
  assert.is(tomb.id, id);
  assert.is(tomb.deleted_at, m.deleted_at);
  assert.equal(tomb.parts, []);
  const edit = await as(['edit', id, '--as', 'alpha', 'back again']);
  assert.is(edit.code, 1);
  assert.match(edit.stderr, /^svc edit: 409 conflict: .*was deleted/);
});

/** Runs `svc ...args` on a pseudo-terminal (script(1)), answering `answer` once `prompt` shows. */
function onTerminal(args: string[], env: Record<string, string>, prompt: RegExp, answer: string): Promise<CliResult> {
  const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const p = spawn(scriptBin(), ['-qfec', command, '/dev/null'], {
      env: cleanEnv({ TERM: 'xterm', ...env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let answered = false;
    const seen = (d: Buffer) => {
      screen += d.toString();
      if (!answered && prompt.test(screen)) {
        answered = true;
        p.stdin!.write(answer);
      }
    };
    p.stdout!.on('data', seen);
    p.stderr!.on('data', seen);
    // Never a hang: a prompt that does not show ends the command, and the test says what the screen held.
    const timer = setTimeout(() => p.kill(), 30_000);
    p.once('error', reject);
    p.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: screen, stderr: answered ? '' : 'the prompt never showed' });
    });
  });
}

t('svc redact without a terminal needs --yes; a non-operator is refused; an unknown id is a 404', async ({ s, as }) => {
  const id = await say(s, 'the api key is sk-nonterminal');
  const bare = await as(['redact', id], { SVC_TOKEN: ADMIN });
  assert.is(bare.code, 2);
  assert.is(bare.stdout, '');
  assert.is(bare.stderr, `svc redact: not a terminal, so nobody can confirm; pass --yes to redact ${id} (it cannot be undone)\n`);
  const agent = await as(['redact', id, '--yes']);
  assert.is(agent.code, 1);
  assert.match(agent.stderr, /^svc redact: 403 forbidden: only an operator \(the admin scope\) may redact message/);
  assert.equal((await stored(s, id)).parts, [{ kind: 'text', text: 'the api key is sk-nonterminal' }], 'nothing was redacted');
  const missing = await as(['redact', 'msg_nosuch', '--yes'], { SVC_TOKEN: ADMIN });
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^svc redact: 404 not_found: message msg_nosuch not found/);
  assert.is((await as(['redact'])).code, 2);
});

t('svc redact --yes leaves a redacted tombstone and says where the scrub is; read marks it; --json gives it', async ({ s, as }) => {
  const id = await say(s, 'the api key is sk-redact-me');
  const r = await as(['redact', id, '--yes'], { SVC_TOKEN: ADMIN });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '');
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines[0], `redacted ${id}: a tombstone stays in its place; its content is gone from the store`);
  // The test server is on sqlite: /readyz names the scrub, pending or done by the time it is asked.
  assert.ok(
    lines[1] === 'the store has finished scrubbing it (search index, free pages, journal)' ||
      lines[1] ===
        'the store is still scrubbing it in the background (search index, free pages, journal): GET /readyz says redaction_scrub: done when it ends',
    r.stdout,
  );
  assert.is(lines.length, 2, r.stdout);
  const m = await stored(s, id);
  assert.equal(m.parts, []);
  assert.type(m.redacted_at, 'string');
  assert.type(m.deleted_at, 'string');
  const read = await as(['read', '--room', 'general']);
  assert.match(read.stdout, new RegExp(`${id} +\\(redacted\\)\\n`));
  assert.not.match(read.stdout, /sk-redact-me/);
  // Redacting again answers the tombstone unchanged.
  const again = await as(['redact', id, '--yes', '--json'], { SVC_TOKEN: ADMIN });
  assert.is(again.code, 0, again.stderr);
  const tomb = JSON.parse(again.stdout);
  assert.equal([tomb.id, tomb.parts, tomb.redacted_at], [id, [], m.redacted_at]);
});

t('svc redact on a terminal asks first: no keeps the message, yes redacts it', async ({ s }) => {
  const id = await say(s, 'the api key is sk-asked-first');
  const env = { SVC_TOKEN: ADMIN, SVC_URL: s.url };
  // The prompt's start: the terminal is 80 columns, so the rest wraps between colour codes.
  const prompt = new RegExp(`Redact ${id}\\?`);
  const no = await onTerminal(['redact', id], env, prompt, 'n\r');
  assert.is(no.stderr, '', no.stdout);
  assert.is(no.code, 1, no.stdout);
  assert.match(no.stdout, /svc redact: nothing redacted/);
  const plain = no.stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\s+/g, ' ');
  assert.match(plain, /Its content is removed from everything svc keeps; this cannot be undone\. \(y\/N\)/);
  assert.equal((await stored(s, id)).parts, [{ kind: 'text', text: 'the api key is sk-asked-first' }], 'no redacts nothing');
  const yes = await onTerminal(['redact', id], env, prompt, 'y\r');
  assert.is(yes.stderr, '', yes.stdout);
  assert.is(yes.code, 0, yes.stdout);
  assert.match(yes.stdout, new RegExp(`redacted ${id}: a tombstone stays in its place`));
  assert.type((await stored(s, id)).redacted_at, 'string');
});

t('svc tail prints the edit, the delete and the redaction as they happen', async ({ s, as }) => {
  const id = await say(s, 'tail me');
  const tail = spawnCli(['tail', '--type', 'message.edited,message.deleted,message.redacted', '--count', '3', '--url', s.url], {
    env: { SVC_TOKEN: ADMIN },
  });
  let out = '';
  let err = '';
  tail.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => tail.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    tail.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (/following events/.test(err)) resolve();
    });
    tail.once('close', () => reject(new Error(`svc tail ended before following: ${err}`)));
  });
  assert.is((await as(['edit', id, '--as', 'alpha', 'tailed'])).code, 0);
  assert.is((await as(['delete', id, '--as', 'alpha'])).code, 0);
  const secret = await say(s, 'tail this secret');
  assert.is((await as(['redact', secret, '--yes'], { SVC_TOKEN: ADMIN })).code, 0);
  assert.is(await exited, 0, err);
  const lines = out.trimEnd().split('\n');
  assert.is(lines.length, 3, out);
  assert.match(lines[0]!, new RegExp(`^\\d\\d:\\d\\d:\\d\\d  message\\.edited +#general alpha: tailed \\(${id} edited, version 2\\)$`));
  assert.match(lines[1]!, new RegExp(`^\\d\\d:\\d\\d:\\d\\d  message\\.deleted +#general alpha: ${id} deleted$`));
  assert.match(lines[2]!, new RegExp(`^\\d\\d:\\d\\d:\\d\\d  message\\.redacted +#general alpha: ${secret} redacted$`));
  assert.not.match(out, /tail this secret/);
});

t.run();
