// svc send --file and svc files get as processes against a real server (#41 part 5): files
// uploaded and attached in order, a download saved under the file's name and never over an
// existing file without --force, stdout with -o -, a cut-off download resumed from its .part file,
// a progress bar on a terminal and none on a pipe, and the refusals as one line.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cli, type CliResult, MEMORY_STORE, scriptBin } from '../helpers/cli.js';
import { dmIdFor } from '../../src/network/messages.js';
import { SVC_BIN, startServer, TOKENS, type TestServer } from '../helpers/server.js';

interface Ctx {
  s: TestServer;
  dir: string;
  as: (args: string[], o?: { cwd?: string }) => Promise<CliResult>;
}

const t = suite<Ctx>('svc send --file and svc files get');
const FILE_LIMIT = 4 * 1024 * 1024;

t.before(async (ctx) => {
  ctx.s = await startServer({
    config: {
      store: MEMORY_STORE,
      server: { limits: { file_bytes: FILE_LIMIT } },
      rooms: [{ id: 'general', members: ['delta'] }],
    },
  });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-files-'));
  ctx.as = (args, o = {}) =>
    cli([...args, '--url', ctx.s.url], { env: { SVC_TOKEN: TOKENS.admin.value }, ...(o.cwd ? { cwd: o.cwd } : {}) });
});
t.after(async (ctx) => {
  await ctx.s?.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

const sub = (ctx: Ctx, name: string) => mkdtempSync(path.join(ctx.dir, `${name}-`));
const lastMessage = async (ctx: Ctx) => {
  const h = (await ctx.s.get('/v1/rooms/general/messages', TOKENS.admin.value)).body.messages;
  return h[h.length - 1];
};

/** Sends `files` (name -> content) with a text and answers their file parts, in order. */
async function sendFiles(
  ctx: Ctx,
  files: Record<string, string | Buffer>,
  text = 'the files',
): Promise<{ file_id: string; name: string; size: number }[]> {
  const d = sub(ctx, 'send');
  const args = ['send', '--room', 'general', '--as', 'delta'];
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(path.join(d, name), content);
    args.push('--file', path.join(d, name));
  }
  const r = await ctx.as([...args, text]);
  assert.is(r.code, 0, r.stderr);
  const m = await lastMessage(ctx);
  return m.parts.filter((p: { kind: string }) => p.kind === 'file');
}

t('send --file uploads each file and sends one message with the text and a file part per file, in order', async (ctx) => {
  const d = sub(ctx, 'send');
  writeFileSync(path.join(d, 'build.log'), 'line one\nline two\n');
  writeFileSync(path.join(d, 'data.bin'), Buffer.from([0, 1, 2, 255]));
  const r = await ctx.as([
    'send',
    '--room',
    'general',
    '--as',
    'delta',
    '--file',
    path.join(d, 'build.log'),
    '--file',
    path.join(d, 'data.bin'),
    'the build',
  ]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^sent \S+ to #general with 2 files\n$/);
  assert.is(r.stderr, '', 'no progress bar on a pipe');
  const m = await lastMessage(ctx);
  assert.equal(
    m.parts.map((p: { kind: string; text?: string; name?: string; size?: number; content_type?: string }) => [
      p.kind,
      p.text ?? p.name,
      p.size,
      p.content_type,
    ]),
    [
      ['text', 'the build', undefined, undefined],
      ['file', 'build.log', 18, 'text/plain'],
      ['file', 'data.bin', 4, 'application/octet-stream'],
    ],
  );
});

t('send --file without text sends the files alone', async (ctx) => {
  const d = sub(ctx, 'alone');
  writeFileSync(path.join(d, 'notes.md'), '# notes\n');
  const r = await ctx.as(['send', '--room', 'general', '--as', 'delta', '--file', path.join(d, 'notes.md')]);
  assert.is(r.code, 0, r.stderr);
  const m = await lastMessage(ctx);
  assert.equal(
    m.parts.map((p: { kind: string }) => p.kind),
    ['file'],
  );
});

t('a missing file is a usage error and nothing is sent', async (ctx) => {
  const before = (await lastMessage(ctx)).id;
  const r = await ctx.as(['send', '--room', 'general', '--as', 'delta', '--file', path.join(ctx.dir, 'nope.txt'), 'hi']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--file .*nope\.txt: no such file/);
  assert.is((await lastMessage(ctx)).id, before);
});

t("a file over the server's limit is refused in one line that names the limit, and nothing is sent", async (ctx) => {
  const before = (await lastMessage(ctx)).id;
  const d = sub(ctx, 'big');
  writeFileSync(path.join(d, 'big.bin'), Buffer.alloc(FILE_LIMIT + 1, 1));
  const r = await ctx.as(['send', '--room', 'general', '--as', 'delta', '--file', path.join(d, 'big.bin'), 'too big']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /^svc send: 413 \S+: .*server\.limits\.file_bytes/m);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.is((await lastMessage(ctx)).id, before);
});

t("files get saves under the file's name in the current folder, and never over an existing file without --force", async (ctx) => {
  const [f] = await sendFiles(ctx, { 'report.txt': 'the report\n' });
  const cwd = sub(ctx, 'get');
  const r = await ctx.as(['files', 'get', f!.file_id], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^saved report\.txt \(11 B\)\n$/);
  assert.is(readFileSync(path.join(cwd, 'report.txt'), 'utf8'), 'the report\n');

  writeFileSync(path.join(cwd, 'report.txt'), 'mine');
  const again = await ctx.as(['files', 'get', f!.file_id], { cwd });
  assert.is(again.code, 2);
  assert.match(again.stderr, /report\.txt exists: pass --force/);
  assert.is(readFileSync(path.join(cwd, 'report.txt'), 'utf8'), 'mine', 'the existing file is untouched');

  const forced = await ctx.as(['files', 'get', f!.file_id, '--force', '--json'], { cwd });
  assert.is(forced.code, 0, forced.stderr);
  assert.is(JSON.parse(forced.stdout).size, 11);
  assert.is(readFileSync(path.join(cwd, 'report.txt'), 'utf8'), 'the report\n');
});

t('files get -o PATH saves there, and -o - writes the bytes to stdout', async (ctx) => {
  const [f] = await sendFiles(ctx, { 'poem.txt': 'roses\nviolets\n' });
  const cwd = sub(ctx, 'out');
  const r = await ctx.as(['files', 'get', f!.file_id, '-o', 'renamed.txt'], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.is(readFileSync(path.join(cwd, 'renamed.txt'), 'utf8'), 'roses\nviolets\n');
  const out = await ctx.as(['files', 'get', f!.file_id, '-o', '-'], { cwd });
  assert.is(out.code, 0, out.stderr);
  assert.is(out.stdout, 'roses\nviolets\n');
});

t('a cut-off download left as its .part file is resumed from where it stopped', async (ctx) => {
  const content = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
  const [f] = await sendFiles(ctx, { 'series.bin': content });
  const head = await ctx.s.req('GET', `/v1/files/${f!.file_id}`, { token: TOKENS.admin.value });
  const etag = head.headers.get('etag')!;
  assert.ok(etag, 'the download has an ETag');
  const cwd = sub(ctx, 'resume');
  const tag = etag.replace(/[^0-9A-Za-z]/g, '').slice(0, 16);
  writeFileSync(path.join(cwd, `series.bin.${tag}.part`), content.subarray(0, 100_000));
  const r = await ctx.as(['files', 'get', f!.file_id], { cwd });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /resumed at 97\.7 KiB/);
  assert.ok(readFileSync(path.join(cwd, 'series.bin')).equals(content), 'the resumed file is whole');
  assert.not.ok(existsSync(path.join(cwd, `series.bin.${tag}.part`)), 'the .part file became the file');
});

t('a file the caller may not read answers as one that does not exist', async (ctx) => {
  // A DM between delta and beta: alpha's token reads, but not this DM.
  const d = sub(ctx, 'dm');
  writeFileSync(path.join(d, 'secret.txt'), 'shh');
  const sent = await ctx.as(['send', '--dm', 'beta', '--as', 'delta', '--file', path.join(d, 'secret.txt'), '--json', 'for beta only']);
  assert.is(sent.code, 0, sent.stderr);
  const dmId = dmIdFor([`${ctx.s.networkId}:beta`, `${ctx.s.networkId}:delta`]);
  const msg = (await ctx.s.get(`/v1/dms/${dmId}/messages`, TOKENS.admin.value)).body.messages.at(-1);
  const fileId = msg.parts.find((p: { kind: string }) => p.kind === 'file').file_id as string;
  const cwd = sub(ctx, 'noread');
  const asAlpha = (id: string) => cli(['files', 'get', id, '--url', ctx.s.url], { cwd, env: { SVC_TOKEN: TOKENS.alphaOnly.value } });
  const other = await asAlpha(fileId);
  const missing = await asAlpha('file_doesnotexist');
  assert.is(other.code, 1);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /404/);
  assert.is(other.stderr.replace(fileId, 'ID'), missing.stderr.replace('file_doesnotexist', 'ID'));
  assert.not.ok(existsSync(path.join(cwd, 'secret.txt')));
});

t('on a terminal, a large upload draws a progress bar', async (ctx) => {
  const d = sub(ctx, 'tty');
  writeFileSync(path.join(d, 'large.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
  const command = [
    process.execPath,
    SVC_BIN,
    'send',
    '--room',
    'general',
    '--as',
    'delta',
    '--file',
    path.join(d, 'large.bin'),
    '--url',
    ctx.s.url,
    'large',
  ]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn(scriptBin(), ['-qfec', command, '/dev/null'], {
      env: cleanEnv({ TERM: 'xterm', SVC_TOKEN: TOKENS.admin.value }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let text = '';
    p.stdout.on('data', (b: Buffer) => (text += b.toString()));
    p.once('error', reject);
    p.once('close', () => resolve(text));
  });
  assert.match(out, /large\.bin \[#+\] 3\.0 MiB\/3\.0 MiB 100%/);
  assert.match(out, /sent \S+ to #general with 1 file/);
  const m = await lastMessage(ctx);
  assert.is(m.parts.find((p: { kind: string }) => p.kind === 'file')?.size, 3 * 1024 * 1024);
});

t.run();
