// Which source wins for rooms (issue 38 item 18): svc.yaml declares its rooms again on every
// reload, so `svc apply` may not differ from what it sets (409 naming the field and svc.yaml, shown
// as "refuse" by --dry-run); what svc.yaml leaves unsaid is the apply's and survives a reload.
// Real processes: the server reloads because its svc.yaml is written again.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stringify } from 'yaml';
import { cli } from '../helpers/cli.js';
import { eventually, startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
let s: TestServer;
const declare = (name: string, rooms: Json[]): string => {
  const file = path.join(s.dir, name);
  writeFileSync(file, stringify({ rooms }), { mode: 0o600 });
  return file;
};
const apply = (file: string, ...flags: string[]) => cli(['apply', file, '--config', s.configFile, '--token', ADMIN, ...flags]);
/** Writes svc.yaml again as it is and waits for the server to have reloaded it. */
const reload = async () => {
  const before = s.output().split('config reloaded').length;
  writeFileSync(s.configFile, readFileSync(s.configFile, 'utf8'), { mode: 0o600 });
  await eventually(() => s.output().split('config reloaded').length > before, 10_000, 'the reload');
};

test.before(async () => {
  s = await startServer({ config: { rooms: [{ id: 'ops', name: 'Ops', members: ['alpha'], visibility: 'public' }] } });
});
test.after(async () => s.dispose());

test('an apply that differs from what svc.yaml sets for a room is refused with 409, and --dry-run says so', async () => {
  const file = declare('private-ops.yaml', [{ id: 'ops', visibility: 'private' }]);
  const plan = await apply(file, '--dry-run');
  assert.is(plan.code, 1, plan.stdout + plan.stderr);
  assert.match(
    plan.stdout,
    /^refuse \(409\)\s+room\s+ops\s+visibility: room ops is declared in the server's svc.yaml, which sets visibility public and wins/m,
  );
  assert.match(plan.stdout, /^1 refused: svc.yaml declares that room otherwise and wins on every reload/m);
  const json = JSON.parse((await apply(file, '--dry-run', '--json')).stdout);
  assert.equal(
    json.changes.map((c: Json) => [c.kind, c.id, c.action]),
    [['room', 'ops', 'refused']],
  );

  const r = await apply(file);
  assert.is(r.code, 1);
  assert.match(r.stderr, /409/);
  assert.match(
    r.stderr,
    /body\.rooms\[0\]\.visibility: room ops is declared in the server's svc\.yaml, which sets visibility public and wins: the next reload would undo this/,
  );
  assert.is((await s.get('/v1/rooms/ops', ADMIN)).body.visibility, 'public');

  const dropped = await apply(declare('no-alpha.yaml', [{ id: 'ops', members: ['bravo'] }]));
  assert.is(dropped.code, 1);
  assert.match(dropped.stderr, /body\.rooms\[0\]\.members: room ops is declared in the server's svc\.yaml, which lists alpha as members/);
});

test('what svc.yaml leaves unsaid is the apply’s and survives a reload', async () => {
  const file = declare('extra.yaml', [
    { id: 'ops', members: ['alpha', 'bravo'], write_policy: 'registered_agents' },
    { id: 'lab', name: 'Lab', members: ['bravo'], visibility: 'private' },
  ]);
  const plan = await apply(file, '--dry-run');
  assert.is(plan.code, 0, plan.stdout + plan.stderr);
  assert.match(
    plan.stdout,
    /^update\s+room\s+ops\s+.*declared in the server's svc.yaml, which wins on reload: this apply agrees with it$/m,
  );
  const r = await apply(file);
  assert.is(r.code, 0, r.stderr);
  await reload();
  const ops = (await s.get('/v1/rooms/ops', ADMIN)).body;
  assert.equal([ops.members, ops.write_policy, ops.visibility], [['alpha', 'bravo'], 'registered_agents', 'public']);
  assert.equal(ops.declared_by_config, { name: 'Ops', members: ['alpha'], visibility: 'public' });
  const lab = (await s.get('/v1/rooms/lab', ADMIN)).body;
  assert.equal([lab.name, lab.members, lab.visibility], ['Lab', ['bravo'], 'private']);
  assert.is(lab.declared_by_config, undefined);
});

test.run();
