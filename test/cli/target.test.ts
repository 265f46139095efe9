// Client commands find their server: the runtime file `svc serve` writes beside its config (the real
// URL after port 0 or --listen), the refusal to send the operator token to another network, and
// `svc init --listen` with a network id derived from the folder. One `svc serve` process shows what it
// writes and removes; the other servers run in the test process (startApp writes the same file).

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { networkIdOfFolder } from '../../src/config/init.js';
import { runtimeFilePath } from '../../src/config/runtime-file.js';
import { networkRefusal } from '../../src/cli/target-check.js';
import { resolveTarget, type Target } from '../../src/cli/target.js';
import { cli, freePort, MEMORY_STORE, onMemoryStore } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { type HttpServer, startServer } from '../helpers/server.js';

const u = suite('target resolution (pure parts)');

u('the network id derived from a folder name is sanitised, cut to 64, and home when nothing is left', () => {
  assert.is(networkIdOfFolder('/x/My Project!'), 'my-project');
  assert.is(networkIdOfFolder('/x/_.hidden'), 'hidden');
  assert.is(networkIdOfFolder('/x/a'.padEnd(80, 'b')), 'a'.padEnd(64, 'b'));
  assert.is(networkIdOfFolder('/'), 'home');
  assert.is(networkIdOfFolder('/x/...'), 'home');
  assert.is(networkIdOfFolder('/x/déjà vu'), 'd-j-vu');
});

u('the network refusal names the answering network, the expected one, and the fix', () => {
  const t: Target = {
    url: 'http://127.0.0.1:9',
    configFile: path.resolve('svc.yaml'),
    configExists: true,
    urlSource: 'config',
    tokenSource: 'config',
    verified: false,
    networkId: 'alpha',
  };
  assert.is(
    networkRefusal(t, { id: 'beta' }),
    "the server at http://127.0.0.1:9 is network beta, not alpha of svc.yaml: the operator token was not sent; start this config's server with svc serve, or pass --url (and --token) for the server you mean",
  );
  assert.is(networkRefusal(t, { id: 'alpha' }), undefined);
  assert.match(
    networkRefusal(t, { hidden: true })!,
    /^the server at http:\/\/127\.0\.0\.1:9 does not show its network to an anonymous caller, so it cannot be told to be network alpha of svc\.yaml: the operator token was not sent;/,
  );
});

u('a runtime file whose process is gone is ignored: the config address is used', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-target-stale-'));
  try {
    const file = path.join(dir, 'svc.yaml');
    writeFileSync(file, 'network: {id: n}\nserver: {listen_addr: 127.0.0.1:7001}\n');
    mkdirSync(path.join(dir, '.svc'));
    const dead = {
      url: 'http://127.0.0.1:7999',
      pid: 2 ** 22 + 1,
      host: os.hostname(),
      network_id: 'n',
      version: '0',
      config: file,
      started_at: '',
    };
    writeFileSync(runtimeFilePath(file), JSON.stringify(dead));
    const t = resolveTarget({ config: file }, {});
    assert.is(t.url, 'http://127.0.0.1:7001');
    assert.is(t.urlSource, 'config');
    writeFileSync(runtimeFilePath(file), JSON.stringify({ ...dead, pid: process.pid }));
    const live = resolveTarget({ config: file }, {});
    assert.is(live.url, 'http://127.0.0.1:7999');
    assert.is(live.urlSource, 'runtime');
    assert.is(live.verified, true);
    assert.is(resolveTarget({ config: file, url: 'http://127.0.0.1:1' }, {}).url, 'http://127.0.0.1:1', '--url still wins');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

u.run();

const p = suite<{ dir: string }>('servers found through the runtime file');
p.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-target-'));
});
p.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

p(
  'svc init --listen 127.0.0.1:0 writes that address and derives the network id from the folder; the client commands find the server and say when none runs',
  async ({ dir }) => {
    const folder = path.join(dir, 'Team Chat');
    mkdirSync(folder);
    const init = await cli(['init', '--yes', '--listen', '127.0.0.1:0'], { cwd: folder });
    assert.is(init.code, 0, init.stderr);
    const c = parse(readFileSync(path.join(folder, 'svc.yaml'), 'utf8'));
    assert.is(c.server.listen_addr, '127.0.0.1:0');
    assert.is(c.network.id, 'team-chat');
    onMemoryStore(path.join(folder, 'svc.yaml'));
    const before = await cli(['rooms', 'list'], { cwd: folder });
    assert.is(before.code, 1);
    assert.match(
      before.stderr,
      /^svc rooms list: no server of this config is running \(server\.listen_addr 127\.0\.0\.1:0 picks its port at start\): start it with svc serve, or pass --url\n$/,
    );
    // A process: the runtime file is what `svc serve` itself writes (its pid) and removes on a clean stop.
    const s = await startServer({ dir: folder, keepConfig: true });
    try {
      const info = JSON.parse(readFileSync(path.join(folder, '.svc', 'svc.server.json'), 'utf8'));
      assert.is(info.url, s.url);
      assert.is(info.network_id, 'team-chat');
      assert.is(info.pid, s.proc.pid);
      const created = await cli(['rooms', 'create', 'ops'], { cwd: folder });
      assert.is(created.code, 0, created.stderr);
      const sent = await cli(['send', '--room', 'ops', '--human', 'me', 'hello'], { cwd: folder });
      assert.is(sent.code, 0, sent.stderr);
      const read = await cli(['read', '--room', 'ops'], { cwd: folder });
      assert.match(read.stdout, /hello/);
    } finally {
      assert.is(await s.stop(), 0);
    }
    assert.not.ok(existsSync(path.join(folder, '.svc', 'svc.server.json')), 'a clean stop removes the runtime file');
    const after = await cli(['rooms', 'list'], { cwd: folder });
    assert.match(after.stderr, /no server of this config is running/);
  },
);

p('svc serve --listen elsewhere is found by the client commands of its folder', async ({ dir }) => {
  const folder = path.join(dir, 'moved');
  mkdirSync(folder);
  const busy = await freePort();
  assert.is((await cli(['init', '--yes', '--listen', `127.0.0.1:${busy}`], { cwd: folder })).code, 0);
  onMemoryStore(path.join(folder, 'svc.yaml'));
  const s = await startApp({ dir: folder, keepConfig: true, args: ['--listen', '127.0.0.1:0'] });
  try {
    assert.is.not(s.port, busy);
    const r = await cli(['rooms', 'create', 'found'], { cwd: folder });
    assert.is(r.code, 0, r.stderr);
    assert.is((await s.get('/v1/rooms/found')).status, 200);
  } finally {
    await s.stop();
  }
});

p('svc init --listen with a bad address is a usage error and writes nothing', async ({ dir }) => {
  const folder = path.join(dir, 'bad-listen');
  mkdirSync(folder);
  const r = await cli(['init', '--yes', '--listen', 'nowhere'], { cwd: folder });
  assert.is(r.code, 2);
  assert.match(r.stderr, /^svc init: --listen "nowhere": must be host:port/);
  assert.not.ok(existsSync(path.join(folder, 'svc.yaml')));
});

p.run();

const n = suite<{ dir: string; other: HttpServer; hidden: HttpServer; alpha: (port: number) => string }>(
  'the operator token never goes to another network',
);
n.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-target-net-'));
  // Another network listens on the port this config names: one public, one that hides its document.
  ctx.other = await startApp({
    config: {
      store: MEMORY_STORE,
      network: { id: 'beta' },
      auth: { mode: 'open', public_read: true, agent_registration: 'open', tokens: [] },
    },
  });
  ctx.hidden = await startApp({ config: { store: MEMORY_STORE, network: { id: 'gamma' } } });
  // The config `svc init --network-id alpha --listen 127.0.0.1:PORT` writes, in a folder of its
  // own per port: init runs once, the other folders get its output with their port.
  const folder = path.join(ctx.dir, 'alpha');
  mkdirSync(folder);
  const init = await cli(['init', '--yes', '--network-id', 'alpha', '--listen', '127.0.0.1:1'], { cwd: folder });
  assert.is(init.code, 0, init.stderr);
  const text = readFileSync(path.join(folder, 'svc.yaml'), 'utf8');
  assert.match(text, /^ {2}listen_addr: 127\.0\.0\.1:1$/m);
  ctx.alpha = (port) => {
    const d = path.join(ctx.dir, `alpha-${port}`);
    if (!existsSync(d)) {
      mkdirSync(d);
      writeFileSync(path.join(d, 'svc.yaml'), text.replace(/^ {2}listen_addr: 127\.0\.0\.1:1$/m, `  listen_addr: 127.0.0.1:${port}`), {
        mode: 0o600,
      });
    }
    return d;
  };
});
n.after(async (ctx) => {
  await ctx.other.dispose();
  await ctx.hidden.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

n(
  'a client command whose config address answers with another network id refuses and says which network answered',
  async ({ alpha, other }) => {
    const folder = alpha(other.port);
    const r = await cli(['rooms', 'create', 'x'], { cwd: folder });
    assert.is(r.code, 1);
    assert.is(
      r.stderr,
      `svc rooms create: the server at ${other.url} is network beta, not alpha of svc.yaml: the operator token was not sent; start this config's server with svc serve, or pass --url (and --token) for the server you mean\n`,
    );
    assert.is((await other.get('/v1/rooms/x')).status, 404, 'nothing was created there');
    assert.not.match(other.output(), /operator/);
  },
);

n(
  'svc doctor against another network on the config address fails its server check and sends no operator token',
  async ({ alpha, other }) => {
    const folder = alpha(other.port);
    const r = await cli(['doctor'], { cwd: folder });
    assert.is(r.code, 1);
    assert.match(
      r.stdout,
      new RegExp(
        `✗ server reachable +cannot tell where the server is: the server at ${other.url.replace(/[.]/g, '\\.')} is network beta, not alpha of svc\\.yaml: the operator token was not sent`,
      ),
    );
  },
);

n('a server that hides its network document from anonymous callers gets no operator token either', async ({ alpha, hidden }) => {
  const folder = alpha(hidden.port);
  const r = await cli(['rooms', 'list'], { cwd: folder });
  assert.is(r.code, 1);
  assert.match(
    r.stderr,
    new RegExp(
      `^svc rooms list: the server at ${hidden.url.replace(/[.]/g, '\\.')} does not show its network to an anonymous caller, so it cannot be told to be network alpha of svc\\.yaml: the operator token was not sent;`,
    ),
  );
});

n('the same config with its own server running is not refused (the check passes and the token is used)', async ({ alpha }) => {
  const folder = alpha(await freePort());
  onMemoryStore(path.join(folder, 'svc.yaml'));
  const s = await startApp({ dir: folder, keepConfig: true });
  try {
    rmSync(path.join(folder, '.svc', 'svc.server.json')); // as with a server of an older version
    const r = await cli(['rooms', 'create', 'mine'], { cwd: folder });
    assert.is(r.code, 0, r.stderr);
  } finally {
    await s.stop();
  }
});

n.run();
