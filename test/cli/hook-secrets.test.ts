// Hook secrets belong to the serving process (issue 38 items 16 and 21): client commands and doctor
// in a shell without a hook's secret_env name it as a warning and go on, and a running server that
// is handed a hook whose variable it never had refuses the reload where the operator looks (the
// network document's warnings, svc doctor, svc webhooks list), not only in its log.

import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { cli } from '../helpers/cli.js';
import { eventually, startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const hook = (id: string, secretEnv: string) => ({
  id,
  url: `http://127.0.0.1:9/${id}`,
  allow_private_network: true,
  secret_env: secretEnv,
});
const CONFIG = { rooms: [{ id: 'general' }], webhooks: [hook('ops', 'OPS_HOOK_SECRET')] };

let s: TestServer;
test.before(async () => {
  // Only the server's environment has the secret.
  s = await startServer({ config: CONFIG, env: { OPS_HOOK_SECRET: SECRET } });
});
test.after(async () => s.dispose());

test('svc invite create and svc doctor work in a shell without the hook secret, naming the variable as a warning', async () => {
  const doctor = await cli(['doctor', '--config', s.configFile, '--url', s.url, '--token', TOKENS.admin.value]);
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, /config valid/);
  assert.match(
    doctor.stdout,
    /hook_secret_unset: webhooks\[0\]\.secret_env: environment variable OPS_HOOK_SECRET is not set in this shell/,
  );
  const invite = await cli([
    'invite',
    'create',
    '--config',
    s.configFile,
    '--relay-url',
    'ws://127.0.0.1:9/v1/relay',
    '--rooms',
    'general',
  ]);
  assert.is(invite.code, 0, invite.stdout + invite.stderr);
  assert.match(invite.stderr, /invite for pairing pair-\w+ written to/);
  assert.match(
    invite.stderr,
    /warning: webhooks\[0\]\.secret_env: environment variable OPS_HOOK_SECRET is not set in this shell; only the server needs it/,
  );
});

test('a reload adding a hook whose variable the server never had is refused, and GET /v1/network, svc doctor and svc webhooks list say so', async () => {
  // The invite above wrote a pairing into the file: keep the file's pairings as they are now.
  const current = parse(readFileSync(s.configFile, 'utf8')) as Json;
  writeFileSync(s.configFile, stringify({ ...current, webhooks: [hook('ops', 'OPS_HOOK_SECRET'), hook('audit', 'AUDIT_HOOK_SECRET')] }), {
    mode: 0o600,
  });
  const refused = await eventually(
    async () => {
      const r = await s.get('/v1/network', TOKENS.admin.value);
      return (r.body.warnings as Json[]).find((w) => w.code === 'config_reload_refused');
    },
    10_000,
    'the refusal in the network warnings',
  );
  assert.match(
    refused.message,
    /svc\.yaml changed .* refused the new version: webhooks\[1\]\.secret_env: environment variable AUDIT_HOOK_SECRET is not set/,
  );
  assert.match(refused.message, /reads hook secrets from its own environment when it starts/);
  assert.not.match(refused.message, s.dir);

  const doctor = await cli(['doctor', '--config', s.configFile, '--url', s.url, '--token', TOKENS.admin.value], {
    env: { OPS_HOOK_SECRET: SECRET, AUDIT_HOOK_SECRET: SECRET },
  });
  assert.match(doctor.stdout, /server warning +config_reload_refused: svc\.yaml changed .*AUDIT_HOOK_SECRET/);

  const list = await cli(['webhooks', 'list', '--config', s.configFile, '--token', TOKENS.admin.value], {
    env: { AUDIT_HOOK_SECRET: SECRET },
  });
  assert.is(list.code, 0, list.stdout + list.stderr);
  assert.match(list.stdout, /declared in svc\.yaml, not loaded by the server\n.*\naudit +webhook/);
  assert.match(list.stdout, /why: svc\.yaml changed .*AUDIT_HOOK_SECRET/);
  assert.match(list.stdout, /ops +http:\/\/127\.0\.0\.1:9\/ops/);
  const json = JSON.parse((await cli(['webhooks', 'list', '--json', '--config', s.configFile, '--token', TOKENS.admin.value])).stdout);
  assert.equal(json.not_loaded, [{ kind: 'webhook', id: 'audit' }]);

  // Fixed in the file: the next reload succeeds and the warning goes.
  writeFileSync(s.configFile, stringify(current), { mode: 0o600 });
  await eventually(
    async () => !((await s.get('/v1/network', TOKENS.admin.value)).body.warnings as Json[]).some((w) => w.code === 'config_reload_refused'),
    10_000,
    'the refusal to clear',
  );
});

test.run();
