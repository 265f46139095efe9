// `svc agent run` hands the command the files of a wake (#41 part 5): downloaded into a private
// temporary folder (0700) named by SVC_FILES_DIR, their paths in SVC_FILES and the prompt, and the
// folder removed once the command ended.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgentRun, type AgentRunProc } from '../helpers/agent-run.js';
import { eventually, startServer, TOKENS, type TestServer } from '../helpers/server.js';
import { claimThenJoin } from '../helpers/claim.js';

interface Ctx {
  s: TestServer;
  dir: string;
  procs: AgentRunProc[];
}

const t = suite<Ctx>('svc agent run with files');
const ADMIN = TOKENS.admin.value;

/** The command: records its files folder, the folder's mode, each file's name and content, and the prompt. */
const BOT = `import { appendFileSync, readFileSync, statSync } from 'node:fs';
let prompt = '';
for await (const c of process.stdin) prompt += c;
const e = process.env;
const paths = (e.SVC_FILES ?? '').split('\\n').filter(Boolean);
appendFileSync(e.RUNS_FILE, JSON.stringify({
  dir: e.SVC_FILES_DIR ?? null,
  mode: e.SVC_FILES_DIR ? (statSync(e.SVC_FILES_DIR).mode & 0o777).toString(8) : null,
  files: paths.map((p) => [p, readFileSync(p, 'utf8')]),
  prompt,
}) + '\\n');
process.stdout.write('got ' + paths.length + ' files');
`;

t.before(async (ctx) => {
  ctx.s = await startServer({ config: { auth: { agent_registration: 'open' }, rooms: [{ id: 'general', members: ['beta'] }] } });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-agent-run-files-test-'));
  writeFileSync(path.join(ctx.dir, 'bot.mjs'), BOT);
  ctx.procs = [];
});
t.after(async (ctx) => {
  await Promise.all(ctx.procs.splice(0).map((p) => p.stop()));
  await ctx.s?.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

async function upload(s: TestServer, name: string, content: string): Promise<string> {
  const r = await s.req('POST', `/v1/files?name=${encodeURIComponent(name)}`, {
    token: ADMIN,
    raw: content,
    headers: { 'content-type': 'text/plain' },
  });
  assert.is(r.status, 201, r.text);
  return r.body.file_id;
}

t('the files of a wake are in a private folder while the command runs, named in the env and the prompt, and gone after', async (ctx) => {
  const { s } = ctx;
  const claim = await claimThenJoin(s, 'ada', ['general']);
  const runs = path.join(ctx.dir, 'ada.runs');
  const p = await startAgentRun(
    ['--url', s.url, '--state-dir', path.join(ctx.dir, 'ada-state'), '--', process.execPath, path.join(ctx.dir, 'bot.mjs')],
    { SVC_TOKEN: claim.body.agent_token, RUNS_FILE: runs },
    ctx.dir,
  );
  ctx.procs.push(p);
  const a = await upload(s, 'notes.txt', 'first file');
  const b = await upload(s, '../../escape.txt', 'second file');
  const sent = await s.post(
    '/v1/messages',
    {
      from: { type: 'agent', id: 'beta' },
      target: { kind: 'room', room_id: 'general' },
      parts: [
        { kind: 'text', text: '@ada two files' },
        { kind: 'file', file_id: a },
        { kind: 'file', file_id: b },
      ],
    },
    ADMIN,
  );
  assert.is(sent.status, 200, sent.text);
  const run = await eventually(
    () => (existsSync(runs) ? JSON.parse(readFileSync(runs, 'utf8').split('\n')[0]!) : undefined),
    20_000,
    'a run',
  );
  assert.type(run.dir, 'string');
  assert.is(run.mode, '700', 'only this user reads the folder');
  assert.equal(
    run.files.map(([f, c]: [string, string]) => [path.relative(run.dir, f), c]),
    [
      ['notes.txt', 'first file'],
      ['escape.txt', 'second file'],
    ],
  );
  assert.match(run.prompt, /\[file notes\.txt, 10 bytes, file_\S+\]/);
  for (const [f] of run.files) assert.ok(run.prompt.includes(f), 'the prompt names each path');
  await p.waitLog(/replied/);
  assert.not.ok(existsSync(run.dir), 'the folder is removed after the command ended');
});

t.run();
