// One listen-address parser: `:PORT` means every interface for `svc serve`, `svc relay` and the
// bind warning alike, so the warning always matches the real bind.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bindTarget, postureWarnings } from '../../src/config/posture.js';
import { cleanEnv, MEMORY_STORE } from '../helpers/cli.js';
import { eventually, SVC_BIN, testConfig, writeConfig } from '../helpers/server.js';
import type { Config } from '../../src/config/types.js';

const u = suite('bindTarget (pure)');

u(':PORT and wildcard hosts mean every interface; named hosts bind as written', () => {
  assert.equal(bindTarget(':8787'), { host: undefined, port: 8787, allInterfaces: true });
  assert.equal(bindTarget('0.0.0.0:1'), { host: '0.0.0.0', port: 1, allInterfaces: true });
  assert.equal(bindTarget('[::]:2'), { host: '::', port: 2, allInterfaces: true });
  assert.equal(bindTarget('127.0.0.1:3'), { host: '127.0.0.1', port: 3, allInterfaces: false });
  assert.equal(bindTarget('[::1]:4'), { host: '::1', port: 4, allInterfaces: false });
  assert.throws(() => bindTarget('8787'), /must be host:port/);
});

u('the bind warning fires for :PORT in open mode and not for loopback', () => {
  const config = (listen: string) =>
    ({ ...testConfig(), server: { listen_addr: listen }, auth: { mode: 'open', agent_registration: 'open' } }) as unknown as Config;
  assert.equal(
    postureWarnings(config(':8787')).map((w) => w.code),
    ['insecure_bind'],
  );
  assert.equal(postureWarnings(config('127.0.0.1:8787')), []);
});
u.run();

const p = suite<{ dir: string; procs: ChildProcess[] }>(':PORT binds every interface in processes');
p.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-listen-'));
  ctx.procs = [];
});
p.after(async (ctx) => {
  // A stopping server removes its runtime file: the folder goes only after every child is gone.
  await Promise.all(
    ctx.procs.map((c) =>
      c.exitCode !== null || c.signalCode !== null
        ? undefined
        : new Promise((r) => {
            c.once('exit', r);
            c.kill('SIGTERM');
          }),
    ),
  );
  rmSync(ctx.dir, { recursive: true, force: true });
});

function run(ctx: { procs: ChildProcess[] }, args: string[], cwd: string): Promise<{ first: string; output: () => string }> {
  const c = spawn(process.execPath, [SVC_BIN, ...args], { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  ctx.procs.push(c);
  let out = '';
  c.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 15_000);
    c.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = /^svc .*listening on .*$/m.exec(out);
      if (line) {
        clearTimeout(timer);
        resolve({ first: line[0], output: () => out });
      }
    });
    c.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

p('svc serve --listen :0 binds every interface, says so, warns, and answers on loopback', async (ctx) => {
  const file = writeConfig(
    ctx.dir,
    testConfig({ store: MEMORY_STORE, auth: { mode: 'open', public_read: true, agent_registration: 'open', tokens: [] } }),
  );
  const { first, output } = await run(ctx, ['serve', '--config', file, '--listen', ':0'], ctx.dir);
  const m = /^svc listening on http:\/\/(\[::\]|0\.0\.0\.0):(\d+) \(network testnet\)$/.exec(first);
  assert.ok(m, first);
  // The warning is logged just after the listening line.
  await eventually(() => /insecure_bind/.test(output()), 5000, 'the bind warning');
  const r = await fetch(`http://127.0.0.1:${m![2]}/healthz`);
  assert.is(r.status, 200);
});

p('svc relay --listen :0 binds every interface too', async (ctx) => {
  const { first } = await run(ctx, ['relay', '--listen', ':0'], ctx.dir);
  const m = /^svc relay listening on ws:\/\/(\[::\]|0\.0\.0\.0):(\d+)\/v1\/relay$/.exec(first);
  assert.ok(m, first);
  const r = await fetch(`http://127.0.0.1:${m![2]}/healthz`);
  assert.is(r.status, 200);
});

p.run();
