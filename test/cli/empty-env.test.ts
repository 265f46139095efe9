// An environment variable set to the empty string counts as unset (src/config/env.ts): `SVC_CONFIG=`
// used to make `svc serve` read the current folder as its config (EISDIR), `SVC_URL=` and
// `SVC_TOKEN=` likewise stood for a URL and a token. Each is checked on the real CLI, from the
// folder of a svc.yaml, where unset means ./svc.yaml, the server it started and its operator token.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, onMemoryStore, spawnCli } from '../helpers/cli.js';

const test = suite('empty SVC_* variables count as unset');

let dir = '';
let server: ChildProcess | undefined;

test.before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-empty-env-'));
  const init = await cli(['init', '--yes', '--network-id', 'home', '--listen', '127.0.0.1:0'], { cwd: dir });
  assert.is(init.code, 0, init.stderr);
  onMemoryStore(path.join(dir, 'svc.yaml'));
});

test.after(async () => {
  // The server removes its runtime file from the folder as it stops: the folder goes after it.
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('svc serve with SVC_CONFIG= serves ./svc.yaml', async () => {
  server = spawnCli(['serve'], { cwd: dir, env: { SVC_CONFIG: '', SVC_URL: '', SVC_TOKEN: '' } });
  let out = '';
  const listening = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 20_000);
    const seen = (d: Buffer): void => {
      out += d.toString();
      if (/svc listening on http:\/\/\S+ \(network home\)/.test(out)) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    server!.stdout!.on('data', seen);
    server!.stderr!.on('data', seen);
    server!.once('exit', () => resolve(false));
  });
  assert.ok(listening, out);
});

for (const name of ['SVC_CONFIG', 'SVC_URL', 'SVC_TOKEN']) {
  test(`a client command with ${name}= finds the running server and acts as the operator`, async () => {
    const r = await cli(['rooms', 'create', `room-${name.toLowerCase().replace('_', '-')}`], { cwd: dir, env: { [name]: '' } });
    assert.is(r.code, 0, r.stderr);
    const list = await cli(['rooms', 'list'], { cwd: dir, env: { [name]: '' } });
    assert.is(list.code, 0, list.stderr);
    assert.match(list.stdout, `room-${name.toLowerCase().replace('_', '-')}`);
  });
}

test('svc doctor with all three empty checks the config of the folder and its server', async () => {
  const r = await cli(['doctor'], { cwd: dir, env: { SVC_CONFIG: '', SVC_URL: '', SVC_TOKEN: '' } });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /server reachable/);
});

test('svc invite create with SVC_CONFIG= writes the pairing into ./svc.yaml', async () => {
  const r = await cli(['invite', 'create', '--relay-url', 'ws://127.0.0.1:9/v1/relay', '--rooms', 'room-svc-config'], {
    cwd: dir,
    env: { SVC_CONFIG: '' },
  });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(readFileSync(path.join(dir, 'svc.yaml'), 'utf8'), /^ {2}- id: pair-/m);
});

test.run();
