// svc doctor as a process: every check on its own marked line, exit 1 only when a check fails.

import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { startServer, TOKENS, type TestServer } from '../helpers/server.js';
import { cli, deadUrl } from '../helpers/cli.js';

const ADMIN = TOKENS.admin.value;

interface Ctx {
  s: TestServer;
  /** Writes a variant of the server's own config (mode 0600 unless told). */
  variant: (name: string, change: (c: Record<string, any>) => void, mode?: number) => string;
  doctor: (args: string[], env?: Record<string, string>) => ReturnType<typeof cli>;
}

const t = suite<Ctx>('svc doctor');
t.before(async (ctx) => {
  ctx.s = await startServer();
  ctx.variant = (name, change, mode = 0o600) => {
    const config = parse(readFileSync(ctx.s.configFile, 'utf8'));
    change(config);
    const file = path.join(ctx.s.dir, name);
    writeFileSync(file, stringify(config), { mode });
    chmodSync(file, mode);
    return file;
  };
  ctx.doctor = (args, env = {}) => cli(['doctor', '--url', ctx.s.url, ...args], { env: { SVC_TOKEN: ADMIN, ...env } });
});
t.after(async (ctx) => ctx.s.dispose());

/** The line of a check as `<mark> <message>` (the padded check name taken out). */
const lineOf = (out: string, check: string) => {
  const line = out.split('\n').find((l) => l.slice(2).startsWith(`${check} `)) ?? '';
  return line && `${line[0]} ${line.slice(2 + check.length).trimStart()}`;
};

t('passes every check against the server its config describes, one marked line each', async ({ s, doctor }) => {
  const r = await doctor(['--config', s.configFile]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  for (const check of [
    'config valid',
    'secret file mode',
    'server reachable',
    'network id',
    'version',
    'protocols',
    'capabilities',
    'server warnings',
    'store engine',
  ]) {
    assert.match(lineOf(r.stdout, check), /^✓ /, `${check}:\n${r.stdout}`);
  }
  assert.match(lineOf(r.stdout, 'network id'), /testnet matches the config/);
  assert.match(lineOf(r.stdout, 'store engine'), /sqlite: checkpoints write changed pages, untouched pages are read on demand/);
  assert.match(lineOf(r.stdout, 'protocols'), /service\.http\.v1, service\.attach\.v1, service\.pair\.v1/);
  assert.match(r.stdout, /all checks passed/);
  assert.not.match(r.stdout, /^✗/m);
});

t('--json lists each check with its status', async ({ s, doctor }) => {
  const r = await doctor(['--config', s.configFile, '--json']);
  assert.is(r.code, 0, r.stderr);
  const body = JSON.parse(r.stdout);
  assert.is(body.ok, true);
  const byName = new Map(body.checks.map((c: { check: string; status: string }) => [c.check, c.status]));
  assert.is(byName.get('server reachable'), 'ok');
  assert.is(byName.get('network id'), 'ok');
});

t('a config with secrets that others can read fails the file-mode check, exit 1', async ({ variant, doctor }) => {
  const file = variant('loose.yaml', () => undefined, 0o644);
  const r = await doctor(['--config', file]);
  assert.is(r.code, 1, r.stdout);
  assert.match(lineOf(r.stdout, 'secret file mode'), /^✗ .*mode 0644\); run: chmod 600/);
  assert.match(r.stdout, /1 check failed/);
});

t('a config of another network fails the network id check', async ({ variant, doctor }) => {
  const file = variant('othernet.yaml', (c) => (c.network.id = 'othernet'));
  const r = await doctor(['--config', file]);
  assert.is(r.code, 1);
  assert.match(lineOf(r.stdout, 'network id'), /^✗ .*the server is network testnet, the config says othernet/);
});

t('an invalid config fails with the key path; the server is still checked', async ({ variant, doctor }) => {
  const file = variant('invalid.yaml', (c) => (c.auth.tokens[1].scopes = ['observe', 'root']));
  const r = await doctor(['--config', file]);
  assert.is(r.code, 1);
  assert.match(lineOf(r.stdout, 'config valid'), /^✗ .*auth\.tokens\[1\]\.scopes\[1\]: must be one of/);
  assert.match(lineOf(r.stdout, 'server reachable'), /^✓ /);
});

t('config warnings are marked but do not fail; configured pairings are listed', async ({ variant, doctor }) => {
  const dead = await deadUrl();
  const file = variant('wide.yaml', (c) => {
    c.server.listen_addr = '0.0.0.0:0';
    c.auth = { mode: 'open', tokens: c.auth.tokens };
    c.pairings = [{ id: 'to-far', remote_network_id: 'farnet', remote_base_url: dead, token: 'pair-secret-123' }];
  });
  const r = await doctor(['--config', file]);
  assert.match(r.stdout, /^! config warning\s+\S+: /m);
  assert.match(lineOf(r.stdout, 'pairing to-far'), /to farnet/);
  assert.not.match(r.stdout + r.stderr, /pair-secret-123/);
  const failed = r.stdout.split('\n').filter((l) => l.startsWith('✗'));
  // The server does not run this config: its network id matches, only the pairing may be unknown to it.
  assert.equal(failed, [], r.stdout);
  assert.is(r.code, 0, r.stdout);
});

t('a rejected token fails the network document check with the token hint', async ({ s, doctor }) => {
  const r = await doctor(['--config', s.configFile], { SVC_TOKEN: 'wrong-token' });
  assert.is(r.code, 1);
  assert.match(lineOf(r.stdout, 'network document'), /^✗ 401 unauthorized: .*the token was rejected/);
});

t('with no server, reachability fails with how to start one and nothing after it runs', async ({ s }) => {
  const url = await deadUrl();
  const r = await cli(['doctor', '--config', s.configFile, '--url', url]);
  assert.is(r.code, 1);
  assert.match(lineOf(r.stdout, 'config valid'), /^✓ /);
  assert.match(lineOf(r.stdout, 'server reachable'), /^✗ no svc server is running at .* start it with `svc serve`/);
  assert.not.match(r.stdout, /network id|protocols/);
});

t('with no config it says to run svc init, or with --url checks the server only', async ({ s }) => {
  const absent = path.join(s.dir, 'absent.yaml');
  const [bare, withUrl] = await Promise.all([cli(['doctor', '--config', absent]), cli(['doctor', '--config', absent, '--url', s.url])]);
  assert.is(bare.code, 1);
  assert.match(lineOf(bare.stdout, 'config valid'), /^✗ no config at .*absent\.yaml: run svc init/);
  assert.match(lineOf(withUrl.stdout, 'config valid'), /^- no config at .*absent\.yaml; checking the server only/);
  assert.match(lineOf(withUrl.stdout, 'server reachable'), /^✓ /);
});

t.run();
