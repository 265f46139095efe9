// The paired network's id of an invite's pairing (none in the config: learned when the peer first
// answers) is kept in the store (issue 38 item 23): after `svc store copy`, a server on the copy
// and `svc doctor` name it, even while the peer is down, instead of "a network not yet known
// (invite out)". The servers run in the test process; svc store copy and svc doctor as processes.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { eventually, TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const OBSERVER = TOKENS.observer.value;
const pairing = async (s: HttpServer): Promise<Json> =>
  ((await s.get('/v1/pairings', OBSERVER)).body.pairings as Json[]).find((p) => p.id === 'ab');

test('after svc store copy, a server on the copy and svc doctor name the paired network an invite learned', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'svc-remote-id-'));
  const b = await startApp({ config: { network: { id: 'beta-net', name: 'Beta' } } });
  let a: AppServer | undefined;
  let copy: AppServer | undefined;
  try {
    a = await startApp({
      config: {
        network: { id: 'alpha-net', name: 'Alpha' },
        server: { pairing_check_interval_ms: 300 },
        // As `svc invite create` writes it: no remote_network_id, it is learned from the peer.
        pairings: [{ id: 'ab', remote_base_url: b.url, token: TOKENS.pair.value }],
      },
    });
    await eventually(async () => (await pairing(a!))?.status === 'connected', 10_000, 'A connected to B');
    assert.is((await pairing(a)).remote_network_id, 'beta-net');
    await a.stop();

    const dir = path.join(root, 'copy');
    mkdirSync(path.join(dir, '.svc'), { recursive: true });
    const copied = await cli(['store', 'copy', '--config', a.configFile, '--to', path.join(dir, '.svc', 'svc.db')]);
    assert.is(copied.code, 0, copied.stderr);
    writeFileSync(path.join(dir, 'svc.yaml'), readFileSync(a.configFile, 'utf8'), { mode: 0o600 });
    // The peer is down: nothing on the copy can learn its id again.
    await b.stop();
    copy = await startApp({ dir, keepConfig: true });
    const seen = await eventually(
      async () => {
        const p = await pairing(copy!);
        return p?.remote_network_id ? p : undefined;
      },
      10_000,
      'the paired network named',
    );
    assert.is(seen.remote_network_id, 'beta-net');
    const doctor = await cli(['doctor', '--config', copy.configFile, '--token', TOKENS.admin.value]);
    assert.match(doctor.stdout, /pairing ab +to beta-net: /);
    assert.not.match(doctor.stdout, /invite out/);
  } finally {
    await copy?.dispose();
    await a?.dispose();
    await b.dispose();
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
