// What a newcomer sees of `svc serve`: the listening line alone on stdout's first line, the next
// steps on stderr, `GET /` leading to the console, a sign-in that says how, and `svc stopped`
// after a clean stop. And its signals are handled from the moment it says it is listening: a
// supervisor or script that sends SIGHUP (reload) as soon as the line appears must not end the
// process by the signal's default action.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nextStepLines } from '../../src/cli/commands/serve/next-steps.js';
import { ROOT, SVC_BIN, startServer, testConfig, writeConfig, PROCESS_START_MS } from '../helpers/server.js';
import { MEMORY_STORE } from '../helpers/cli.js';

const u = suite('the next-step lines');

u('a config at ./svc.yaml needs no --config', () => {
  assert.equal(nextStepLines('/srv/net/svc.yaml', '/srv/net', '/pkg'), [
    'next, in another terminal:',
    '  svc console    (a one-time sign-in link for the browser console)',
    '  svc connect claude --agent ID --register    (an agent in Claude Code; also codex, cursor)',
    '  docs: /pkg/docs/README.md',
  ]);
});

u('another config is named relative to the folder the server started in, or absolute outside it, quoted when needed', () => {
  assert.is(
    nextStepLines('/srv/net/prod.yaml', '/srv/net', '/pkg')[1],
    '  svc console --config prod.yaml    (a one-time sign-in link for the browser console)',
  );
  assert.is(
    nextStepLines('/srv/net/conf/svc.yaml', '/srv/net', '/pkg')[2],
    '  svc connect claude --agent ID --register --config conf/svc.yaml    (an agent in Claude Code; also codex, cursor)',
  );
  assert.is(
    nextStepLines('/etc/svc/svc.yaml', '/home/me', '/pkg')[1],
    '  svc console --config /etc/svc/svc.yaml    (a one-time sign-in link for the browser console)',
  );
  assert.is(
    nextStepLines("/srv/my net/it's.yaml", '/srv', '/pkg')[1],
    `  svc console --config 'my net/it'\\''s.yaml'    (a one-time sign-in link for the browser console)`,
  );
});

u('the docs index the lines point to ships in the package', () => {
  assert.ok(existsSync(path.join(ROOT, 'docs', 'README.md')));
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  assert.ok(pkg.files.includes('docs'), 'docs/ is in the published files');
});

u.run();

/**
 * Spawns `svc serve` in `dir` and resolves once its listening line is out; `atListening` runs in
 * the very tick that line arrives (a signal sent then lands in start-up's last instructions).
 */
async function serveUntilListening(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  atListening: (proc: ChildProcess) => void = () => {},
): Promise<{ proc: ChildProcess; url: string; stdout: () => string; stderr: () => string }> {
  const proc = spawn(process.execPath, [SVC_BIN, 'serve', ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc serve did not start:\n${stdout}${stderr}`)), PROCESS_START_MS);
    proc.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /svc listening on (http:\/\/\S+)/.exec(stdout);
      if (!m) return;
      atListening(proc);
      clearTimeout(timer);
      resolve(m[1]!);
    });
  });
  return { proc, url, stdout: () => stdout, stderr: () => stderr };
}

/** Runs `svc serve` from `dir` until listening, then sends `signal`; resolves its streams and exit code. */
async function serveAndStop(
  dir: string,
  args: string[],
  signal: NodeJS.Signals,
): Promise<{ stdout: string; stderr: string; code: number | null; url: string }> {
  const { proc, url, stdout, stderr } = await serveUntilListening(dir, args, { HOME: dir });
  // The next-step lines come right after the listening line.
  const deadline = Date.now() + 5000;
  while (!stderr().includes('docs: ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const running = stdout();
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.kill(signal);
  const code = await exited;
  assert.is(running, `svc listening on ${url} (network testnet)\n`, 'stdout holds only the listening line while the server runs');
  return { stdout: stdout(), stderr: stderr(), code, url };
}

const s = suite('svc serve start and stop');

s('the listening line is alone on stdout, the next steps follow on stderr, and SIGTERM ends with svc stopped and exit 0', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-start-'));
  try {
    writeConfig(dir, testConfig());
    const r = await serveAndStop(dir, ['--config', 'svc.yaml'], 'SIGTERM');
    assert.match(r.stdout, /^svc listening on http:\/\/127\.0\.0\.1:\d+ \(network testnet\)\nsvc stopped\n$/);
    assert.is(r.code, 0);
    const lines = r.stderr.split('\n');
    const at = lines.indexOf('next, in another terminal:');
    assert.ok(at >= 0, r.stderr);
    assert.equal(lines.slice(at, at + 4), [
      'next, in another terminal:',
      '  svc console    (a one-time sign-in link for the browser console)',
      '  svc connect claude --agent ID --register    (an agent in Claude Code; also codex, cursor)',
      `  docs: ${path.join(ROOT, 'docs', 'README.md')}`,
    ]);
    // Stopped only after the store is closed: its lock is gone by then.
    assert.not.ok(existsSync(path.join(dir, '.svc', 'svc.db.lock')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

s('a server run with another config file names it in the next steps, and SIGINT also ends with svc stopped', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-start-'));
  try {
    // The store plays no part here (the SIGTERM test checks its lock): the memory store starts on half the CPU.
    const file = writeConfig(dir, testConfig({ store: MEMORY_STORE }));
    const other = path.join(dir, 'lab.yaml');
    renameSync(file, other);
    const r = await serveAndStop(dir, ['--config', other], 'SIGINT');
    assert.ok(r.stderr.includes('\n  svc console --config lab.yaml    (a one-time sign-in link for the browser console)\n'), r.stderr);
    assert.ok(r.stderr.includes('\n  svc connect claude --agent ID --register --config lab.yaml    ('), r.stderr);
    assert.ok(r.stdout.endsWith('\nsvc stopped\n'), r.stdout);
    assert.is(r.code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

s.run();

const h = suite('the front door over HTTP');

h('GET / redirects to the console, and a visitor without a session is told to run svc console on the server', async () => {
  const srv = await startServer({ config: { store: MEMORY_STORE } });
  try {
    const root = await fetch(`${srv.url}/`, { redirect: 'manual' });
    assert.is(root.status, 302);
    assert.is(root.headers.get('location'), '/console/');
    await root.text();
    const page = await fetch(`${srv.url}/console/`, { redirect: 'manual' });
    assert.is(page.status, 401);
    const html = await page.text();
    assert.ok(html.includes('To sign in, run <code>svc console</code> on the server'), html);
  } finally {
    await srv.dispose();
  }
});

h("on a public-read network the console's Sign in control tells an anonymous visitor to run svc console on the server", async () => {
  const srv = await startServer({ config: { store: MEMORY_STORE, auth: { public_read: true } } });
  try {
    const page = await fetch(`${srv.url}/console/`, { redirect: 'manual' });
    assert.is(page.status, 200);
    const html = await page.text();
    const m = /<details id="sign-in"[^>]*>([\s\S]*?)<\/details>/.exec(html);
    assert.ok(m, 'the sign-in control is in the shell');
    assert.ok(m![1]!.includes('<summary>Sign in</summary>'));
    assert.ok(m![1]!.includes('To sign in, run <code>svc console</code> on the server'), m![1]);
    const session = await (await fetch(`${srv.url}/console/api/session`)).json();
    assert.is((session as { signed_in: boolean }).signed_in, false, 'the visitor is anonymous, so app.js shows the control');
  } finally {
    await srv.dispose();
  }
});

h.run();

const sig = suite('svc serve signals');

/** Starts svc serve, sends SIGHUP in the same tick its listening line arrives; resolves how it stands 300 ms later. */
async function hupAtListening(dir: string): Promise<{ alive: boolean; status: number | undefined; output: string }> {
  const file = writeConfig(dir, testConfig({ store: MEMORY_STORE }));
  const { proc, url, stdout, stderr } = await serveUntilListening(dir, ['--config', file], {}, (p) => p.kill('SIGHUP'));
  await new Promise((r) => setTimeout(r, 300));
  const alive = proc.exitCode === null && proc.signalCode === null;
  const status = alive ? (await fetch(`${url}/healthz`)).status : undefined;
  if (alive) {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
  return { alive, status, output: `${stdout()}${stderr()}` };
}

sig('a SIGHUP sent the moment the listening line appears reloads instead of ending the process', async () => {
  // The window is a few instructions wide; several starts make a regression show.
  for (let i = 0; i < 6; i++) {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-signals-'));
    try {
      const r = await hupAtListening(dir);
      assert.ok(r.alive, `start ${i + 1}: the process ended on SIGHUP:\n${r.output}`);
      assert.is(r.status, 200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

sig.run();
