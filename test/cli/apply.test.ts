// svc apply FILE as a process against a real server: plan, apply, apply again, and its failures.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { startApp } from '../helpers/app.js';
import { type HttpServer, TOKENS } from '../helpers/server.js';
import { cli, deadUrl, MEMORY_STORE, onMemoryStore } from '../helpers/cli.js';

const ADMIN = TOKENS.admin.value;

interface Ctx {
  s: HttpServer;
  file: string;
  write: (name: string, config: Record<string, unknown>) => string;
}

const t = suite<Ctx>('svc apply against a running server');
t.before(async (ctx) => {
  ctx.s = await startApp({ config: { store: MEMORY_STORE, rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] } });
  ctx.write = (name, config) => {
    const file = path.join(ctx.s.dir, name);
    writeFileSync(file, stringify(config), { mode: 0o600 });
    return file;
  };
  // Token values come from the environment, which apply never needs: only ids travel.
  ctx.file = ctx.write('declared.yaml', {
    network: { id: 'testnet' },
    server: { listen_addr: `127.0.0.1:${ctx.s.port}` },
    auth: {
      mode: 'bearer',
      tokens: [
        { id: 'admin', value_env: 'UNSET_ADMIN_TOKEN', scopes: ['observe', 'write', 'admin'] },
        { id: 'alpha-only', value_env: 'UNSET_ALPHA_TOKEN', scopes: ['observe', 'write', 'attach'], agents: ['alpha', 'bravo'] },
      ],
    },
    rooms: [
      { id: 'general', name: 'General', members: ['alpha', 'bravo'], write_policy: 'registered_agents' },
      { id: 'ops', name: 'Ops', members: ['bravo'], visibility: 'private' },
    ],
  });
});
t.after(async (ctx) => ctx.s.dispose());

t('--dry-run shows the plan with details and applies nothing', async ({ s, file }) => {
  const r = await cli(['apply', file, '--dry-run'], { env: { SVC_TOKEN: ADMIN } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^plan for network testnet at http:\/\/127\.0\.0\.1:\d+ \(dry run: nothing is applied\)$/m);
  assert.match(r.stdout, /^PLAN\s+KIND\s+ID\s+DETAILS$/m);
  assert.match(r.stdout, /^create\s+agent\s+bravo$/m);
  assert.match(
    r.stdout,
    /^update\s+room\s+general\s+members \+bravo; write_policy members -> registered_agents; declared in the server's svc.yaml, which wins on reload: this apply agrees with it$/m,
  );
  assert.match(r.stdout, /^create\s+room\s+ops$/m);
  assert.match(r.stdout, /^2 to create, 1 to update, 1 unchanged$/m);
  assert.is((await s.get('/v1/rooms/ops', ADMIN)).status, 404, 'nothing was applied');
});

t('the first run creates and updates, the second reports nothing changed', async ({ s, file }) => {
  const first = await cli(['apply', file], { env: { SVC_TOKEN: ADMIN } });
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /^applied declared\.yaml to network testnet at http:\/\/127\.0\.0\.1:\d+$/m);
  assert.match(first.stdout, /^RESULT\s+KIND\s+ID$/m);
  assert.match(first.stdout, /^unchanged\s+agent\s+alpha$/m);
  assert.match(first.stdout, /^created\s+agent\s+bravo$/m);
  assert.match(first.stdout, /^updated\s+room\s+general$/m);
  assert.match(first.stdout, /^created\s+room\s+ops$/m);
  assert.match(first.stdout, /^2 created, 1 updated, 1 unchanged$/m);
  const ops = (await s.get('/v1/rooms/ops', ADMIN)).body;
  assert.is(ops.visibility, 'private');
  assert.equal(ops.members, ['bravo']);

  const second = await cli(['apply', file], { env: { SVC_TOKEN: ADMIN } });
  assert.is(second.code, 0, second.stderr);
  assert.match(second.stdout, /^nothing changed \(4 unchanged\)$/m);
  assert.not.match(second.stdout, /^(created|updated)\s/m);

  const plan = await cli(['apply', file, '--dry-run', '--json'], { env: { SVC_TOKEN: ADMIN } });
  assert.is(plan.code, 0, plan.stderr);
  const body = JSON.parse(plan.stdout);
  assert.is(body.dry_run, true);
  assert.ok(
    body.changes.every((c: { action: string }) => c.action === 'unchanged'),
    plan.stdout,
  );
});

t('--json prints the server answer with its changes', async ({ file }) => {
  const r = await cli(['apply', file, '--json'], { env: { SVC_TOKEN: ADMIN } });
  assert.is(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.is(body.applied, true);
  assert.equal(
    body.rooms.map((x: { id: string }) => x.id),
    ['general', 'ops'],
  );
  assert.equal(body.changes.length, 4);
});

t('the request carries token ids, never values', async ({ s, write }) => {
  // A token with a literal value: the server must only ever see `token:<id>`.
  const file = write('literal.yaml', {
    network: { id: 'testnet' },
    auth: { mode: 'bearer', tokens: [{ id: 'alpha-only', value: 'literal-secret-value-123', scopes: ['observe'], agents: ['alpha'] }] },
    rooms: [],
  });
  const r = await cli(['apply', file, '--url', s.url, '--json'], { env: { SVC_TOKEN: ADMIN } });
  assert.is(r.code, 0, r.stderr);
  assert.not.match(r.stdout + r.stderr + s.output(), /literal-secret-value-123/);
});

t('every failure exits 1 with one line: auth, wrong network, unknown token id, bad file', async ({ s, file, write }) => {
  const other = write('other.yaml', { network: { id: 'othernet' }, server: { listen_addr: `127.0.0.1:${s.port}` }, rooms: [{ id: 'x' }] });
  const badToken = write('bad-token.yaml', {
    network: { id: 'testnet' },
    server: { listen_addr: `127.0.0.1:${s.port}` },
    auth: { mode: 'bearer', tokens: [{ id: 'nobody', value_env: 'UNSET_X', scopes: ['observe'], agents: ['zulu'] }] },
  });
  const invalid = write('invalid.yaml', { network: { id: 'testnet' }, rooms: [{ id: 'x', visibility: 'secret' }] });
  const [noToken, observer, wrongNet, wrongNetPlan, unknownToken, schema, missing] = await Promise.all([
    cli(['apply', file]),
    cli(['apply', file], { env: { SVC_TOKEN: TOKENS.observer.value } }),
    cli(['apply', other], { env: { SVC_TOKEN: ADMIN } }),
    cli(['apply', other, '--dry-run'], { env: { SVC_TOKEN: ADMIN } }),
    cli(['apply', badToken], { env: { SVC_TOKEN: ADMIN } }),
    cli(['apply', invalid, '--url', s.url], { env: { SVC_TOKEN: ADMIN } }),
    cli(['apply', path.join(s.dir, 'nope.yaml')], { env: { SVC_TOKEN: ADMIN } }),
  ]);
  for (const r of [noToken, observer, wrongNet, wrongNetPlan, unknownToken, schema, missing]) {
    assert.is(r.code, 1, r.stdout + r.stderr);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^svc apply: /);
  }
  assert.match(
    noToken.stderr,
    /401 unauthorized: .*; no token was sent \(no --token, no SVC_TOKEN, declared\.yaml has no operator token for http:\/\/127\.0\.0\.1:\d+\): run the command in the server.s config folder/,
  );
  assert.match(observer.stderr, /403 forbidden/);
  assert.match(wrongNet.stderr, /422 unprocessable_entity: body\.network_id: othernet is not this network \(testnet\)/);
  assert.match(wrongNetPlan.stderr, /othernet .* is not the network at .* \(testnet\)/);
  assert.match(unknownToken.stderr, /422 unprocessable_entity: body\.agents\[0\]\.credential_key: token:nobody names no static token/);
  assert.match(schema.stderr, /rooms\[0\]\.visibility: must be one of/);
  assert.match(missing.stderr, /nope\.yaml: no such file/);
});

t('with no server at the URL it says so and exits 1', async ({ file }) => {
  const url = await deadUrl();
  const r = await cli(['apply', file, '--url', url], { env: { SVC_TOKEN: ADMIN } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^svc apply: no svc server is running at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/);
});

t.run();

const f = suite<{ dir: string; s: HttpServer; elsewhere: string }>('svc apply FILE from the config folder');
f.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-apply-folder-'));
  ctx.elsewhere = mkdtempSync(path.join(tmpdir(), 'svc-apply-elsewhere-'));
  const init = await cli(['init', '--yes', '--network-id', 'folder-net', '--listen', '127.0.0.1:0'], { cwd: ctx.dir });
  assert.is(init.code, 0, init.stderr);
  onMemoryStore(path.join(ctx.dir, 'svc.yaml'));
  ctx.s = await startApp({ dir: ctx.dir, keepConfig: true });
  // Setup through the API with the operator token init wrote (svc rooms create is tested elsewhere).
  const operator = parse(readFileSync(path.join(ctx.dir, 'svc.yaml'), 'utf8')).auth.tokens.find((x: { id: string }) => x.id === 'operator');
  const ops = await ctx.s.post('/v1/rooms', { id: 'ops', visibility: 'private' }, operator.value);
  assert.ok(ops.status < 300, ops.text);
  writeFileSync(
    path.join(ctx.dir, 'rooms.yaml'),
    stringify({
      rooms: [
        { id: 'ops', name: 'Ops' },
        { id: 'lobby', name: 'Lobby' },
      ],
    }),
  );
});
f.after(async (ctx) => {
  await ctx.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
  rmSync(ctx.elsewhere, { recursive: true, force: true });
});

f(
  'a rooms-only file dry-runs and applies with the operator token of ./svc.yaml, at the URL its running server wrote',
  async ({ dir, s }) => {
    const plan = await cli(['apply', 'rooms.yaml', '--dry-run'], { cwd: dir });
    assert.is(plan.code, 0, plan.stderr);
    assert.match(plan.stdout.split('\n')[0]!, /^plan for network folder-net at http:\/\/127\.0\.0\.1:\d+ \(dry run: nothing is applied\)$/);
    assert.match(plan.stdout, /^update\s+room\s+ops\s+name ops -> Ops$/m);
    assert.match(plan.stdout, /^create\s+room\s+lobby$/m);
    const r = await cli(['apply', 'rooms.yaml'], { cwd: dir });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^applied rooms\\.yaml to network folder-net at ${s.url.replace(/[.]/g, '\\.')}$`, 'm'));
    assert.match(r.stdout, /^created\s+room\s+lobby$/m);
    assert.match(r.stdout, /^updated\s+room\s+ops$/m);
    const ops = await cli(['rooms', 'get', 'ops', '--json'], { cwd: dir });
    assert.is(JSON.parse(ops.stdout).name, 'Ops');
    assert.is(JSON.parse(ops.stdout).visibility, 'private', 'apply leaves what the file does not declare');
  },
);

f('a declarations file binds agents to token ids the server knows, without any token value', async ({ dir }) => {
  writeFileSync(path.join(dir, 'bindings.yaml'), stringify({ auth: { tokens: [{ id: 'operator', agents: ['scout'] }] } }));
  const r = await cli(['apply', 'bindings.yaml'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^created\s+agent\s+scout$/m);
  const again = await cli(['apply', 'bindings.yaml', '--dry-run'], { cwd: dir });
  assert.match(again.stdout, /^keep\s+agent\s+scout/m);
});

f('a whole config applied from the folder uses the operator token of ./svc.yaml too', async ({ dir }) => {
  const whole = parse(readFileSync(path.join(dir, 'svc.yaml'), 'utf8'));
  whole.auth.tokens = [];
  whole.rooms = [{ id: 'whole-room', name: 'Whole' }];
  writeFileSync(path.join(dir, 'whole.yaml'), stringify(whole));
  const r = await cli(['apply', 'whole.yaml'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^created\s+room\s+whole-room$/m);
});

f(
  'a dry run that can only see the anonymous view says so on its first line and never plans to create a private room',
  async ({ s, elsewhere }) => {
    writeFileSync(
      path.join(elsewhere, 'declared.yaml'),
      stringify({ network: { id: 'folder-net' }, rooms: [{ id: 'ops' }, { id: 'brand-new' }] }),
    );
    const r = await cli(['apply', 'declared.yaml', '--dry-run', '--url', s.url], { cwd: elsewhere });
    assert.is(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0]!, /^dry run as an anonymous caller \(no token was sent\): private rooms and agents are hidden/);
    assert.match(r.stdout, /^cannot tell\s+room\s+ops\s+exists and is private/m);
    assert.not.match(r.stdout, /^create\s+room\s+ops/m);
    assert.match(r.stdout, /^create\s+room\s+brand-new$/m);
    assert.match(r.stdout, /^1 to create, 0 to update, 0 unchanged, 1 cannot tell$/m);
    const json = await cli(['apply', 'declared.yaml', '--dry-run', '--json', '--url', s.url], { cwd: elsewhere });
    const body = JSON.parse(json.stdout);
    assert.is(body.anonymous, true);
    assert.equal(body.changes.find((c: { id: string }) => c.id === 'ops').action, 'unknown');
  },
);

f('a rooms-only file with no config to name its network, or with other sections, is refused with one line', async ({ s, elsewhere }) => {
  writeFileSync(path.join(elsewhere, 'rooms.yaml'), stringify({ rooms: [{ id: 'x' }] }));
  writeFileSync(path.join(elsewhere, 'mixed.yaml'), stringify({ rooms: [{ id: 'x' }], server: { listen_addr: '127.0.0.1:1' } }));
  const [alone, mixed] = await Promise.all([
    cli(['apply', 'rooms.yaml', '--url', s.url], { cwd: elsewhere }),
    cli(['apply', 'mixed.yaml', '--config', path.join(s.dir, 'svc.yaml')], { cwd: elsewhere }),
  ]);
  assert.is(alone.code, 1);
  assert.match(
    alone.stderr,
    /^svc apply: .*rooms\.yaml: declarations only \(no network:\), and no config says which network they are for: run it in the config folder, pass --config FILE, or add network: \{id: \.\.\.\}\n$/,
  );
  assert.is(mixed.code, 1);
  assert.match(mixed.stderr, /^svc apply: .*mixed\.yaml: server: is a config section, but the file has no network:/);
});

f.run();
