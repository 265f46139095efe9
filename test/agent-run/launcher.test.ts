// The launcher of `svc agent run`: a command that once started fresh is next handed to a shell
// started ahead, and gets the same arguments, environment, stdin, exit code and process group.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Launcher, launchLine } from '../../src/agent-run/launcher.js';
import { waitFor } from '../helpers/store-fixtures.js';

const t = suite('agent run launcher');

// Prints what it got: its pid, arguments, the run's variables and stdin; exits with EXIT_CODE.
const REPORT = `
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(T_|__svc|line$|NL$)/.test(k)));
  process.stdout.write(JSON.stringify({ pid: process.pid, argv: process.argv.slice(1), env, input }));
  process.exit(Number(process.env.T_EXIT ?? 0));
});`;
const command = (...args: string[]) => [process.execPath, '-e', REPORT, '--', ...args];
const ARGS = ["it's", 'a "quoted" $HOME `x`', 'two\nlines', '', ' spaced ', 'ünï \\ back'];
const ENV = { T_PLAIN: 'plain', T_TRICKY: 'o\'neil "$HOME" `id` $(id)\nsecond line\n', T_EMPTY: '', T_EXIT: '3' };
const INHERITED = { line: 'mine', NL: 'not a newline' };
const PROMPT = "line one\nline two: 'quoted'\n\n";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t('the launch line quotes every argument and value so the shell reads them back unchanged', () => {
  const line = launchLine(['a', "b'c"], { K: 'x\ny' });
  assert.is(line, `set -- 'a' 'b'\\''c'; export K='x'"$__svc_nl"'y'\n`);
  assert.is(line.split('\n').length, 2, 'one line and its newline');
});

t('a fresh start first, then a ready shell: both runs get the same arguments, variables, stdin and exit code', async () => {
  // Variables of the runner's own environment with names a shell script might use reach the command unchanged.
  Object.assign(process.env, INHERITED);
  const launcher = new Launcher();
  try {
    assert.is(launcher.readyPid, undefined, 'nothing is started before a command has run');
    const first = await launcher.run(command(...ARGS), { input: PROMPT, env: ENV, timeoutMs: 30_000 }).done;
    await waitFor(() => launcher.readyPid !== undefined, 'a shell is ready after the first run');
    const ready = launcher.readyPid!;
    const second = await launcher.run(command(...ARGS), { input: Promise.resolve(PROMPT), env: ENV, timeoutMs: 30_000 }).done;
    for (const r of [first, second]) {
      assert.is(r.code, 3, r.stderr);
      const got = JSON.parse(r.stdout) as { pid: number; argv: string[]; env: Record<string, string>; input: string };
      assert.equal(got.argv, ARGS);
      assert.equal(got.env, { ...ENV, ...INHERITED }, "the run's variables and the inherited ones; none of the shell's own");
      assert.is(got.input, PROMPT);
    }
    assert.is.not(JSON.parse(first.stdout).pid, ready);
    assert.is(JSON.parse(second.stdout).pid, ready, 'the second run is the ready shell, exec-ed in place');
  } finally {
    launcher.close();
    for (const k of Object.keys(INHERITED)) delete process.env[k];
  }
});

t('a program that cannot start is reported by the spawn, and no shell is kept for it', async () => {
  const launcher = new Launcher();
  try {
    for (let i = 0; i < 2; i++) {
      const r = await launcher.run(['/nonexistent/agent-cli'], { input: '', env: {}, timeoutMs: 30_000 }).done;
      assert.match(r.spawnError ?? '', /ENOENT/);
      assert.is(launcher.readyPid, undefined);
    }
  } finally {
    launcher.close();
  }
});

t('a ready shell run that times out is stopped with its process group; close ends the waiting shell', async () => {
  const launcher = new Launcher();
  const sh = ['/bin/sh', '-c', 'sleep 60 & echo $! ; wait'];
  await launcher.run(['/bin/sh', '-c', 'true'], { input: '', env: {}, timeoutMs: 30_000 }).done;
  await waitFor(() => launcher.readyPid !== undefined, 'a shell is ready');
  const r = await launcher.run(sh, { input: '', env: {}, timeoutMs: 300 }).done;
  assert.ok(r.timedOut);
  const sleeper = Number(r.stdout.trim());
  await waitFor(() => !alive(sleeper), "the command's child is stopped with it");
  await waitFor(() => launcher.readyPid !== undefined, 'a shell is ready again');
  const waiting = launcher.readyPid!;
  launcher.close();
  await waitFor(() => !alive(waiting), 'the waiting shell exits when the launcher closes');
  assert.is(launcher.readyPid, undefined);
});

t.run();
