// svc rooms and svc agents run as processes against one real server: tables, --json, exit codes
// and the error lines for missing, wrong and under-scoped tokens.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, TOKENS, type TestServer } from '../helpers/server.js';
import { cli, MEMORY_STORE } from '../helpers/cli.js';

const ADMIN = TOKENS.admin.value;

const t = suite<{ s: TestServer; as: (args: string[], env?: Record<string, string>) => ReturnType<typeof cli> }>(
  'svc rooms and agents against a running server',
);
t.before(async (ctx) => {
  ctx.s = await startServer({ config: { store: MEMORY_STORE, rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] } });
  ctx.as = (args, env = {}) => cli([...args, '--url', ctx.s.url], { env: { SVC_TOKEN: ADMIN, ...env } });
});
t.after(async (ctx) => ctx.s.dispose());

t('rooms list prints an aligned table with a header, and --json the API shape', async ({ as }) => {
  const [human, machine] = await Promise.all([as(['rooms', 'list']), as(['rooms', 'list', '--json'])]);
  assert.is(human.code, 0, human.stderr);
  const lines = human.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^ID\s+NAME\s+VISIBILITY\s+WRITE POLICY\s+MEMBERS$/);
  const row = lines.find((l) => l.startsWith('general'))!;
  assert.match(row, /^general\s+General\s+public\s+members\s+alpha$/);
  // Aligned: every column starts at the same offset in the header and the row.
  assert.is(row.indexOf('public'), lines[0]!.indexOf('VISIBILITY'));
  assert.not.match(human.stdout, /\x1b\[/, 'no colour when stdout is not a TTY');
  assert.is(machine.code, 0, machine.stderr);
  const body = JSON.parse(machine.stdout);
  assert.equal(
    body.rooms.map((r: { id: string }) => r.id),
    ['general'],
  );
  assert.is(body.rooms[0].fqid, 'svc://testnet/rooms/general');
});

t('rooms create, get, members and delete round-trip, each exiting 0', async ({ as, s }) => {
  const created = await as([
    'rooms',
    'create',
    'ops',
    '--name',
    'Ops',
    '--member',
    'alpha,beta',
    '--visibility',
    'private',
    '--write-policy',
    'operators',
  ]);
  assert.is(created.code, 0, created.stderr);
  assert.match(created.stdout, /created room ops \(private, write policy operators, members: alpha, beta\)/);

  const got = await as(['rooms', 'get', 'ops']);
  assert.is(got.code, 0, got.stderr);
  assert.match(got.stdout, /^id\s+ops$/m);
  assert.match(got.stdout, /^members\s+alpha, beta$/m);
  const gotJson = JSON.parse((await as(['rooms', 'get', 'ops', '--json'])).stdout);
  assert.is(gotJson.write_policy, 'operators');

  const changed = await as(['rooms', 'members', 'ops', '--add', 'gamma', '--remove', 'beta']);
  assert.is(changed.code, 0, changed.stderr);
  assert.match(changed.stdout, /room ops: \+gamma -beta/);
  assert.match(changed.stdout, /members: alpha, gamma/);
  const members = await as(['rooms', 'members', 'ops', '--json']);
  assert.equal(JSON.parse(members.stdout), { room_id: 'ops', members: ['alpha', 'gamma'] });
  assert.equal((await s.get('/v1/rooms/ops', ADMIN)).body.members, ['alpha', 'gamma']);

  const removed = await as(['rooms', 'delete', 'ops']);
  assert.is(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /removed room ops \(soft/);
  assert.is((await s.get('/v1/rooms/ops', ADMIN)).status, 404);
});

t('agents register, list, get and delete, with the registration shown', async ({ as }) => {
  const reg = await as(['agents', 'register', '--id', 'delta', '--name', 'Delta']);
  assert.is(reg.code, 0, reg.stderr);
  assert.match(reg.stdout, /registered agent delta \(svc:\/\/testnet\/agents\/delta\)/);
  assert.not.match(reg.stdout, /agent token/, 'a static credential gets no generated token');

  const list = await as(['agents', 'list']);
  assert.is(list.code, 0, list.stderr);
  assert.match(list.stdout, /^ID\s+NAME\s+ROOMS\s+FQID$/m);
  assert.match(list.stdout, /^delta\s+Delta\s+-\s+svc:\/\/testnet\/agents\/delta$/m);
  const listJson = JSON.parse((await as(['agents', 'list', '--json'])).stdout);
  assert.ok(listJson.agents.some((a: { id: string }) => a.id === 'delta'));

  const got = await as(['agents', 'get', 'delta', '--json']);
  assert.is(got.code, 0, got.stderr);
  assert.is(JSON.parse(got.stdout).name, 'Delta');

  const del = await as(['agents', 'delete', 'delta']);
  assert.is(del.code, 0, del.stderr);
  assert.match(del.stdout, /removed agent delta/);
  const gone = await as(['agents', 'get', 'delta']);
  assert.is(gone.code, 1);
  assert.match(gone.stderr, /^svc agents get: 404 not_found: agent delta not found; list the agents: svc agents list\n$/);
});

t('a missing token is a 401 line that names --token and SVC_TOKEN, exit 1', async ({ s }) => {
  const r = await cli(['rooms', 'create', 'x', '--url', s.url]);
  assert.is(r.code, 1);
  assert.match(
    r.stderr,
    /^svc rooms create: 401 unauthorized: .*; no token was sent \(no --token, no SVC_TOKEN, .*\): run the command in the server's config folder \(or pass --config FILE\) so its operator token is used, or pass --token \(env SVC_TOKEN\)\n$/,
  );
  assert.is(r.stdout, '');
});

t('a wrong token is told it was rejected; an under-scoped one gets 403 and a scope hint', async ({ s }) => {
  const [wrong, weak] = await Promise.all([
    cli(['rooms', 'list', '--url', s.url, '--token', 'not-a-token']),
    cli(['rooms', 'create', 'x', '--url', s.url], { env: { SVC_TOKEN: TOKENS.observer.value } }),
  ]);
  assert.is(wrong.code, 1);
  assert.match(
    wrong.stderr,
    /401 unauthorized: .*; the token given with --token was refused by http:\/\/127\.0\.0\.1:\d+: check it against auth\.tokens/,
  );
  assert.not.match(wrong.stderr, /not-a-token/, 'the token never appears in errors');
  assert.is(weak.code, 1);
  assert.match(weak.stderr, /^svc rooms create: 403 forbidden: .*scope/);
});

t.run();
