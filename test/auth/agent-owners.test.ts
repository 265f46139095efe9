// An agent belongs to one credential: two tokens listing the same agent in auth.tokens[].agents is
// refused by `svc serve`, by a config reload (the running config is kept) and by `svc apply`,
// with the key paths of both entries; POST /v1/apply refuses two bindings of one agent likewise.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { cli } from '../helpers/cli.js';
import { eventually, startServer, testConfig, TOKENS, writeConfig, type Json } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';

const ADMIN = TOKENS.admin.value;
const EXPECTED = /auth\.tokens\[1\]\.agents\[1\] and auth\.tokens\[2\]\.agents\[0\] both name agent alpha/;

/** The test tokens with a third one that also lists alpha. */
function ambiguousAuth(): Json {
  return {
    tokens: [
      { ...TOKENS.admin, scopes: [...TOKENS.admin.scopes] },
      { id: 'first', value: 'tok-first-0123456789', scopes: ['write'], agents: ['beta', 'alpha'] },
      { id: 'second', value: 'tok-second-0123456789', scopes: ['write'], agents: ['alpha', 'gamma'] },
    ],
  };
}

const t = suite('two tokens naming the same agent');

t('svc serve refuses to start and names both entries', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-owners-'));
  try {
    const file = writeConfig(dir, testConfig({ auth: ambiguousAuth() }));
    const r = await cli(['serve', '--config', file], { cwd: dir });
    assert.not.equal(r.code, 0);
    assert.match(r.stderr + r.stdout, EXPECTED);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('one token listing an agent twice is not ambiguous and starts', async () => {
  // In the test process: the config goes through the loader that refuses the ambiguous list above.
  const s = await startApp({
    config: { auth: { tokens: [{ ...TOKENS.admin, scopes: [...TOKENS.admin.scopes], agents: ['alpha', 'alpha'] }] } },
  });
  try {
    assert.is((await s.get('/healthz')).status, 200);
  } finally {
    await s.dispose();
  }
});

t('a reload with the ambiguous list is refused, logged, and the running config is kept', async () => {
  // A process: the reload is the one SIGHUP starts.
  const s = await startServer({ config: { rooms: [{ id: 'general', members: ['alpha'] }] } });
  try {
    writeConfig(
      s.dir,
      testConfig({
        auth: ambiguousAuth(),
        rooms: [
          { id: 'general', members: ['alpha'] },
          { id: 'later', members: [] },
        ],
      }),
    );
    s.proc.kill('SIGHUP');
    await eventually(() => EXPECTED.test(s.output()), 5000, 'the reload error in the log');
    assert.match(s.output(), /config reload \(SIGHUP\) failed; keeping the running config/);
    // The old tokens still work and the new room was not applied.
    assert.is((await s.get('/v1/rooms/general', TOKENS.observer.value)).status, 200);
    assert.is((await s.get('/v1/rooms/later', ADMIN)).status, 404);
  } finally {
    await s.dispose();
  }
});

t('svc apply refuses the file before contacting the server', async () => {
  const s = await startApp();
  try {
    const file = path.join(s.dir, 'declared.yaml');
    writeFileSync(
      file,
      stringify({
        network: { id: 'testnet' },
        server: { listen_addr: `127.0.0.1:${s.port}` },
        auth: { mode: 'bearer', ...ambiguousAuth() },
      }),
      { mode: 0o600 },
    );
    const r = await cli(['apply', file, '--url', s.url], { env: { SVC_TOKEN: ADMIN } });
    assert.not.equal(r.code, 0);
    assert.match(r.stderr, EXPECTED);
    assert.is((await s.get('/v1/agents/gamma', ADMIN)).status, 404, 'nothing was applied');
  } finally {
    await s.dispose();
  }
});

t('POST /v1/apply refuses two bindings of one agent to different credentials with both paths', async () => {
  const s = await startApp();
  try {
    const body = {
      network_id: 'testnet',
      agents: [
        { id: 'alpha', credential_key: 'token:alpha-only' },
        { id: 'beta', credential_key: 'token:admin' },
        { id: 'alpha', credential_key: 'token:admin' },
      ],
      rooms: [],
    };
    const r = await s.post('/v1/apply', body, ADMIN);
    assert.is(r.status, 422, r.text);
    assert.match(r.body.error, /body\.agents\[0\] and body\.agents\[2\] both name agent alpha/);
    assert.is((await s.get('/v1/agents/beta', ADMIN)).status, 404, 'nothing was applied');
  } finally {
    await s.dispose();
  }
});

t.run();
