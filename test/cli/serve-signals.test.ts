// `svc serve` handles its signals from the moment it says it is listening: a supervisor or script
// that sends SIGHUP (reload) as soon as the line appears must not end the process by the signal's
// default action.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SVC_BIN, testConfig, writeConfig } from '../helpers/server.js';
import { MEMORY_STORE } from '../helpers/cli.js';

const t = suite('svc serve signals');

/** Starts svc serve, sends SIGHUP in the same tick its listening line arrives; resolves how it stands 300 ms later. */
async function hupAtListening(dir: string): Promise<{ alive: boolean; status: number | undefined; output: string }> {
  const file = writeConfig(dir, testConfig({ store: MEMORY_STORE }));
  const proc = spawn(process.execPath, [SVC_BIN, 'serve', '--config', file], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc serve did not start:\n${output}`)), 15_000);
    proc.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /svc listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (!m) return;
      proc.kill('SIGHUP');
      clearTimeout(timer);
      resolve(Number(m[1]));
    });
  });
  await new Promise((r) => setTimeout(r, 300));
  const alive = proc.exitCode === null && proc.signalCode === null;
  const status = alive ? (await fetch(`http://127.0.0.1:${port}/healthz`)).status : undefined;
  if (alive) {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
  return { alive, status, output };
}

t('a SIGHUP sent the moment the listening line appears reloads instead of ending the process', async () => {
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

t.run();
