// The README's first session (the fenced block between the first-session markers), run command by
// command as written with whatever `svc` the PATH of `env` finds: the local build
// (test/docs/readme-session.test.ts) or an installed package (test/cli/installed-package.test.ts).
// A command ending in `&` runs in the background; the session waits for its first line of output.

import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { PROCESS_START_MS } from './server.js';

/** The shell lines of the README's first session, comments removed. */
export function firstSessionCommands(readme: string): string[] {
  const m = /<!-- first-session -->\s*```sh\n([\s\S]*?)```\s*<!-- \/first-session -->/.exec(readme);
  if (m === null) throw new Error('README.md has no first-session block');
  return m[1]!
    .split('\n')
    .map((l) => l.replace(/\s+#\s.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

interface Ran {
  code: number | null;
  out: string;
}

function run(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const p = spawn('sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.once('error', reject);
    p.once('close', (code) => resolve({ code, out }));
  });
}

/** Starts a background command and waits for its first output line (a server's listening line, a runner's attached line). */
function background(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ proc: ChildProcess; first: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('sh', ['-c', `exec ${line}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no output from ${line} in ${PROCESS_START_MS / 1000} s`)), PROCESS_START_MS);
    const seen = (d: Buffer): void => {
      out += d.toString();
      if (/listening on|attached as/.test(out)) {
        clearTimeout(timer);
        resolve({ proc: p, first: out });
      }
    };
    p.stdout!.on('data', seen);
    p.stderr!.on('data', seen);
    p.once('exit', (code) => reject(new Error(`${line} exited ${code}: ${out}`)));
  });
}

export interface FirstSession {
  /** The output of each foreground command, in order. */
  outputs: string[];
  /** The URL `svc serve` said it listens on. */
  url: string;
  /** Stops the background jobs (the server last). */
  stop: () => Promise<void>;
}

/**
 * Runs the session in `work` (an empty folder) and checks what it promises: every command exits 0,
 * beta's command answers alpha's DM and its mention in general, Claude Code is connected and the console link is printed. The
 * server keeps running until `stop`, which the caller must call (also when this throws, it stops
 * what it started).
 */
export async function runFirstSession(readme: string, work: string, env: NodeJS.ProcessEnv): Promise<FirstSession> {
  const commands = firstSessionCommands(readme);
  assert.ok(commands.length >= 8, 'the first session has its commands');
  const jobs: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    // The caller removes the folder next: every job has exited (the server removed its runtime file) first.
    const exited = jobs.map((j) => new Promise((r) => (j.exitCode !== null || j.signalCode !== null ? r(null) : j.once('exit', r))));
    for (const j of [...jobs].reverse()) j.kill('SIGTERM');
    await Promise.all(exited);
  };
  const outputs: string[] = [];
  let url = '';
  try {
    for (let line of commands) {
      // The one change: a free port instead of 8787, so the test never meets a server already there.
      if (/^svc init\b/.test(line)) line += ' --listen 127.0.0.1:0';
      if (line.endsWith('&')) {
        const job = await background(line.slice(0, -1).trim(), work, env);
        jobs.push(job.proc);
        url ||= /listening on (http:\/\/\S+)/.exec(job.first)?.[1] ?? '';
        continue;
      }
      const r = await run(line, work, env);
      assert.is(r.code, 0, `${line}\n${r.out}`);
      outputs.push(r.out);
    }
    const dmRead = commands.find((l) => /^svc read .*--dm/.test(l));
    assert.ok(dmRead !== undefined, 'the session reads the DM');
    let dm = outputs[commands.filter((l) => !l.endsWith('&')).indexOf(dmRead!)]!;
    for (let i = 0; i < 40 && !dm.includes('beta here'); i++) {
      await new Promise((r) => setTimeout(r, 250));
      dm = (await run(dmRead!, work, env)).out;
    }
    assert.match(dm, 'beta here', 'svc agent run posted the reply of its command');
    // The mention in general woke beta too: general is the room agents join when they register.
    const mention = commands.find((l) => /^svc send .*--room general .*@beta/.test(l));
    assert.ok(mention !== undefined, 'the session mentions beta in general');
    assert.not.match(outputs[commands.filter((l) => !l.endsWith('&')).indexOf(mention!)]!, /not mentioned/);
    let room = '';
    for (let i = 0; i < 40 && !room.includes('beta here'); i++) {
      room = (await run('svc read --as alpha --room general', work, env)).out;
      if (!room.includes('beta here')) await new Promise((r) => setTimeout(r, 250));
    }
    assert.match(room, 'beta here', 'beta answered the mention in general');
    assert.match(outputs.join('\n'), /connected claude as agent alpha/);
    assert.match(outputs.at(-1)!, /\/console\/sign-in\?code=/);
    assert.ok(url !== '', 'svc serve printed the URL it listens on');
    return { outputs, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
