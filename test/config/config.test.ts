import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderInitConfig, writeConfigFile } from '../../src/config/init.js';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load.js';
import { isLoopbackHost, parseListenAddr, postureWarnings } from '../../src/config/posture.js';
import type { LoadedConfig } from '../../src/config/types.js';

const test = suite('config');
let dir = '';

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
});
test.after.each(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a config file into the temp dir with the given mode and returns its path. */
function file(text: string, mode = 0o600, name = 'svc.yaml'): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

function parse(raw: unknown, env: NodeJS.ProcessEnv = {}): LoadedConfig {
  return parseConfig(raw, { baseDir: '/srv/svc', env, file: 'svc.yaml' });
}

/** The ConfigError message thrown by fn (fails the test when fn succeeds or throws something else). */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ConfigError);
    return (err as Error).message;
  }
  assert.unreachable('expected a ConfigError');
  return '';
}

const ALL_SCOPES = 'observe, write, admin, attach, pair';

test('a file with only network.id gets every default filled in', () => {
  const path = file('network:\n  id: home\n', 0o644);
  const { config, warnings, file: where } = loadConfig(path, {});
  assert.is(where, path);
  assert.equal(config.network, { id: 'home', name: 'home' });
  assert.equal(config.server, {
    listen_addr: '127.0.0.1:8787',
    human_ingress: true,
    direct_messages: true,
    debug_events: false,
    heartbeat_interval_ms: 30000,
    event_buffer: 10000,
    pairing_check_interval_ms: 30000,
    limits: {
      per_credential_rps: 0,
      per_address_rps: 0,
      auth_failures_per_minute: 20,
      sse_streams_per_address: 32,
      page_bytes: 4194304,
      body_seconds: 30,
      mcp_waits_per_credential: 16,
      mcp_waits_per_server: 1000,
      file_bytes: 26214400,
      file_uploads_per_minute: 0,
      file_bytes_per_day: 0,
    },
    delivery: { redeliver_after_ms: 60000, max_offers: 5, warn_after_ms: 300000 },
    files: { unreferenced_ttl: '1h', pairing_carry_bytes: 1048576 },
    loop_guard: { enabled: true, max_consecutive: 50, pause_ms: 60000 },
    a2a: { agents: [], task_days: 7, max_tasks_per_caller: 1000, push_allow_private_network: false },
  });
  assert.equal(config.store, { backend: 'sqlite', path: join(dir, '.svc/svc.db'), checkpoint_bytes: 67108864 });
  assert.equal(config.auth, { mode: 'open', public_read: true, agent_registration: 'open', tokens: [] });
  assert.equal(config.rooms, []);
  assert.equal(config.pairings, []);
  assert.is(config.require_pair_network_binding, false);
  assert.equal(warnings, []);
});

test('bearer mode keeps public_read false and registration disabled by default', () => {
  const { config } = parse({
    network: { id: 'home' },
    auth: { mode: 'bearer', tokens: [{ id: 'ops', value: 's3cret', scopes: ['admin'] }] },
  });
  assert.equal(config.auth, {
    mode: 'bearer',
    public_read: false,
    agent_registration: 'disabled',
    tokens: [{ id: 'ops', value: 's3cret', scopes: ['admin'] }],
  });
});

test('store.path is resolved against the config folder and an absolute path is kept', () => {
  assert.is(parse({ network: { id: 'a' }, store: { path: 'data/x.db' } }).config.store.path, '/srv/svc/data/x.db');
  assert.is(parse({ network: { id: 'a' }, store: { path: '/var/lib/svc.db' } }).config.store.path, '/var/lib/svc.db');
});

test('parsing does not change the value it was given', () => {
  const raw = { network: { id: 'a' } };
  parse(raw);
  assert.equal(raw, { network: { id: 'a' } });
});

test('a bad scope names its exact key path and the allowed values', () => {
  const raw = {
    network: { id: 'home' },
    auth: {
      tokens: [
        { value: 'a', scopes: ['observe'] },
        { value: 'b', scopes: ['superuser'] },
      ],
    },
  };
  assert.is(
    errorOf(() => parse(raw)),
    `svc.yaml: auth.tokens[1].scopes[0]: must be one of ${ALL_SCOPES}`,
  );
});

test('a bad auth.mode in a file on disk is prefixed with the file path', () => {
  const path = file('network:\n  id: home\nauth:\n  mode: oauth\n', 0o644);
  assert.is(
    errorOf(() => loadConfig(path, {})),
    `${path}: auth.mode: must be one of none, bearer, open`,
  );
});

test('an unknown key is rejected by name', () => {
  assert.is(
    errorOf(() => parse({ network: { id: 'a' }, server: { foo: 1 } })),
    'svc.yaml: server.foo: unknown key',
  );
});

test('a misspelt key suggests the real one', () => {
  const msg = errorOf(() => parse({ network: { id: 'a' }, server: { listen_adr: ':1' } }));
  assert.is(msg, 'svc.yaml: server.listen_adr: unknown key (did you mean listen_addr?)');
});

test('an id that breaks the id rule says what an id is', () => {
  const msg = errorOf(() => parse({ network: { id: 'a' }, rooms: [{ id: 'ok' }, { id: '-bad room' }] }));
  assert.is(msg, 'svc.yaml: rooms[1].id: must be an id: letters, digits, . _ - (max 64), starting with a letter or digit');
  assert.match(
    errorOf(() => parse({ network: { id: 'x'.repeat(65) } })),
    /^svc\.yaml: network\.id: must be an id/,
  );
});

test('server.delivery refuses a redelivery bound or deadline out of range, naming the key', () => {
  assert.match(
    errorOf(() => parse({ network: { id: 'a' }, server: { delivery: { max_offers: 0 } } })),
    /^svc\.yaml: server\.delivery\.max_offers: /,
  );
  assert.match(
    errorOf(() => parse({ network: { id: 'a' }, server: { delivery: { redeliver_after_ms: 10 } } })),
    /^svc\.yaml: server\.delivery\.redeliver_after_ms: /,
  );
  assert.match(
    errorOf(() => parse({ network: { id: 'a' }, server: { delivery: { warn_after: '5m' } } })),
    /^svc\.yaml: server\.delivery/,
  );
  assert.equal(parse({ network: { id: 'a' }, server: { delivery: { max_offers: 2 } } }).config.server.delivery, {
    redeliver_after_ms: 60000,
    max_offers: 2,
    warn_after_ms: 300000,
  });
});

test('a value of the wrong type says what was expected and what was found', () => {
  const msg = errorOf(() => parse({ network: { id: 'a' }, server: { human_ingress: 'yes' } }));
  assert.is(msg, 'svc.yaml: server.human_ingress: must be a boolean (got the string "yes")');
  assert.match(
    errorOf(() => parse({ network: { id: 'a' }, rooms: { id: 'x' } })),
    /^svc\.yaml: rooms: must be a list/,
  );
});

test('a missing network.id is named', () => {
  assert.is(
    errorOf(() => parse({ network: { name: 'Home' } })),
    'svc.yaml: network.id: is required',
  );
  assert.is(
    errorOf(() => parse({ server: {} })),
    'svc.yaml: network: is required',
  );
});

test('several problems are reported as one line with a count', () => {
  const msg = errorOf(() => parse({ network: { id: 'a' }, server: { foo: 1, bar: 2 } }));
  assert.is(msg, 'svc.yaml: server.foo: unknown key (and 1 more problem)');
});

test('a YAML syntax error names the line and column', () => {
  const path = file('network:\n  id: home\n name: [broken\n', 0o644);
  assert.match(
    errorOf(() => loadConfig(path, {})),
    new RegExp(`^${path}: YAML syntax error at line 3, column \\d+: `),
  );
});

test('an empty file and a file that is not a mapping are refused', () => {
  assert.match(
    errorOf(() => loadConfig(file('# nothing here\n', 0o644), {})),
    /the file is empty/,
  );
  assert.match(
    errorOf(() => loadConfig(file('- a\n- b\n', 0o644), {})),
    /must be a YAML mapping.*not a list/,
  );
  assert.match(
    errorOf(() => loadConfig(join(dir, 'missing.yaml'), {})),
    /no such file/,
  );
});

test('bearer mode without a static token is refused', () => {
  assert.is(
    errorOf(() => parse({ network: { id: 'a' }, auth: { mode: 'bearer' } })),
    'svc.yaml: auth.tokens: bearer mode needs at least one static token',
  );
});

test('a private room declared join_on_register is refused: every registering agent would read it', () => {
  assert.is(
    errorOf(() =>
      parse({
        network: { id: 'a' },
        rooms: [
          { id: 'pub', join_on_register: true },
          { id: 'ops', visibility: 'private', join_on_register: true },
        ],
      }),
    ),
    'svc.yaml: rooms[1].join_on_register: room ops is private, and every agent that registers would join it and read it; add its members by name instead',
  );
  assert.not.throws(() => parse({ network: { id: 'a' }, rooms: [{ id: 'pub', visibility: 'public', join_on_register: true }] }));
});

test('duplicate token, room and pairing ids name the second occurrence', () => {
  const tokens = [
    { id: 'ops', value: 'a', scopes: ['admin'] },
    { id: 'ops', value: 'b', scopes: ['observe'] },
  ];
  assert.is(
    errorOf(() => parse({ network: { id: 'a' }, auth: { tokens } })),
    'svc.yaml: auth.tokens[1].id: duplicate token id "ops" (also auth.tokens[0])',
  );
  assert.is(
    errorOf(() => parse({ network: { id: 'a' }, rooms: [{ id: 'r' }, { id: 's' }, { id: 'r' }] })),
    'svc.yaml: rooms[2].id: duplicate room id "r" (also rooms[0])',
  );
  const pairing = { id: 'p', remote_network_id: 'other', remote_base_url: 'https://other.example', token: 't' };
  assert.is(
    errorOf(() => parse({ network: { id: 'a' }, pairings: [pairing, pairing] })),
    'svc.yaml: pairings[1].id: duplicate pairing id "p" (also pairings[0])',
  );
});

test('two tokens with the same value are refused without printing the value', () => {
  const tokens = [
    { id: 'a', value: 'same-secret', scopes: ['admin'] },
    { id: 'b', value: 'same-secret', scopes: ['observe'] },
  ];
  const msg = errorOf(() => parse({ network: { id: 'a' }, auth: { tokens } }));
  assert.is(msg, 'svc.yaml: auth.tokens[1]: same value as auth.tokens[0]');
});

test('open mode refuses an explicit registration other than open', () => {
  const msg = errorOf(() => parse({ network: { id: 'a' }, auth: { mode: 'open', agent_registration: 'disabled' } }));
  assert.match(msg, /^svc\.yaml: auth\.agent_registration: must be open when auth\.mode is open/);
  assert.is(parse({ network: { id: 'a' }, auth: { mode: 'open', agent_registration: 'open' } }).config.auth.agent_registration, 'open');
});

test('open mode forces public_read and notes an explicit false', () => {
  const { config, warnings } = parse({ network: { id: 'a' }, auth: { mode: 'open', public_read: false } });
  assert.is(config.auth.public_read, true);
  assert.equal(
    warnings.map((w) => w.code),
    ['public_read_forced'],
  );
});

test('value_env reads the token from the environment', () => {
  const raw = { network: { id: 'a' }, auth: { mode: 'bearer', tokens: [{ id: 'ops', value_env: 'OPS_TOKEN', scopes: ['admin'] }] } };
  assert.equal(parse(raw, { OPS_TOKEN: 'from-env' }).config.auth.tokens, [{ id: 'ops', value: 'from-env', scopes: ['admin'] }]);
});

test('a missing value_env variable is an error naming the key and the variable', () => {
  const raw = { network: { id: 'a' }, auth: { tokens: [{ value_env: 'OPS_TOKEN', scopes: ['admin'] }] } };
  assert.is(
    errorOf(() => parse(raw, {})),
    'svc.yaml: auth.tokens[0].value_env: environment variable OPS_TOKEN is not set',
  );
});

test('a token needs exactly one of value and value_env', () => {
  const none = { network: { id: 'a' }, auth: { tokens: [{ scopes: ['admin'] }] } };
  assert.is(
    errorOf(() => parse(none)),
    'svc.yaml: auth.tokens[0]: needs value or value_env',
  );
  const both = { network: { id: 'a' }, auth: { tokens: [{ value: 'x', value_env: 'X', scopes: ['admin'] }] } };
  assert.is(
    errorOf(() => parse(both, { X: 'y' })),
    'svc.yaml: auth.tokens[0]: set value or value_env, not both',
  );
});

test('a token without an id gets one derived from the hash of its value', () => {
  const raw = { network: { id: 'a' }, auth: { tokens: [{ value: 'abc', scopes: ['observe'], agents: ['alpha'] }] } };
  // sha256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
  assert.equal(parse(raw).config.auth.tokens, [{ id: 'sha256:ba7816bf8f01', value: 'abc', scopes: ['observe'], agents: ['alpha'] }]);
});

test('SERVICE_PAIRINGS_JSON adds pairings after the file ones', () => {
  const fromFile = { id: 'p1', remote_network_id: 'n1', remote_base_url: 'https://n1.example', token: 't1' };
  const fromEnv = {
    id: 'p2',
    remote_network_id: 'n2',
    token: 't2',
    bound: true,
    relay: { url: 'wss://relay.example/v1/relay', room: 'r00m' },
  };
  const { config } = parse({ network: { id: 'a' }, pairings: [fromFile] }, { SERVICE_PAIRINGS_JSON: JSON.stringify([fromEnv]) });
  assert.equal(config.pairings, [fromFile, fromEnv]);
});

test('SERVICE_PAIRINGS_JSON that is not valid JSON is refused by name', () => {
  const msg = errorOf(() => parse({ network: { id: 'a' } }, { SERVICE_PAIRINGS_JSON: '[{"id": ' }));
  assert.match(msg, /^SERVICE_PAIRINGS_JSON: not valid JSON/);
  assert.is(
    errorOf(() => parse({ network: { id: 'a' } }, { SERVICE_PAIRINGS_JSON: '{}' })),
    'SERVICE_PAIRINGS_JSON: must be a JSON array of pairing objects',
  );
});

test('SERVICE_PAIRINGS_JSON entries are checked with the pairing schema', () => {
  const env = { SERVICE_PAIRINGS_JSON: JSON.stringify([{ id: 'p', remote_network_id: 'n', remote_base_url: 'https://n.example' }]) };
  assert.is(
    errorOf(() => parse({ network: { id: 'a' } }, env)),
    'SERVICE_PAIRINGS_JSON[0].token: is required',
  );
  const dup = {
    SERVICE_PAIRINGS_JSON: JSON.stringify([{ id: 'p', remote_network_id: 'n', remote_base_url: 'https://n.example', token: 't' }]),
  };
  const raw = { network: { id: 'a' }, pairings: [{ id: 'p', remote_network_id: 'm', remote_base_url: 'https://m.example', token: 'u' }] };
  assert.is(
    errorOf(() => parse(raw, dup)),
    'SERVICE_PAIRINGS_JSON[0].id: duplicate pairing id "p" (also pairings[0])',
  );
});

test('a pairing needs a base URL or a relay block', () => {
  const raw = { network: { id: 'a' }, pairings: [{ id: 'p', remote_network_id: 'n', token: 't' }] };
  assert.is(
    errorOf(() => parse(raw)),
    'svc.yaml: pairings[0]: needs remote_base_url or a relay block',
  );
  const badRelay = {
    network: { id: 'a' },
    pairings: [{ id: 'p', remote_network_id: 'n', token: 't', relay: { url: 'https://x', room: 'r' } }],
  };
  assert.is(
    errorOf(() => parse(badRelay)),
    'svc.yaml: pairings[0].relay.url: must be a ws:// or wss:// URL',
  );
});

test('a room federating with an unknown pairing is a warning, not an error', () => {
  const { warnings } = parse({ network: { id: 'a' }, rooms: [{ id: 'general', federation: { pairings: ['ghost'] } }] });
  assert.equal(
    warnings.map((w) => [w.severity, w.code]),
    [['warning', 'unknown_federation_pairing']],
  );
  assert.match(warnings[0]!.message, /^rooms\[0\]\.federation\.pairings\[0\]: /);
});

const SECRET_YAML = 'network:\n  id: home\nauth:\n  tokens:\n    - id: ops\n      value: s3cret\n      scopes: [admin]\n';

test('a group-readable file holding secrets is refused with the chmod fix', () => {
  const path = file(SECRET_YAML, 0o640);
  const msg = errorOf(() => loadConfig(path, {}));
  assert.match(msg, /auth\.tokens\[0\]\.value/);
  assert.match(msg, /group or others \(mode 0640\)/);
  assert.ok(msg.endsWith(`chmod 600 ${path}`), msg);
});

test('a pairing token in a world-readable file is refused too', () => {
  const text = 'network: {id: home}\npairings:\n  - {id: p, remote_network_id: n, remote_base_url: "https://n.example", token: t}\n';
  assert.match(
    errorOf(() => loadConfig(file(text, 0o604), {})),
    /pairings\[0\]\.token.*chmod 600/,
  );
});

test('a symlinked file holding secrets is refused', () => {
  const real = file(SECRET_YAML, 0o600, 'real.yaml');
  const link = join(dir, 'svc.yaml');
  symlinkSync(real, link);
  assert.match(
    errorOf(() => loadConfig(link, {})),
    /is a symlink/,
  );
});

test('a 0600 file holding secrets is accepted', () => {
  const { config } = loadConfig(file(SECRET_YAML, 0o600), {});
  assert.is(config.auth.tokens[0]!.value, 's3cret');
});

test('a file without secrets may be 0644, and secrets from the environment need no file check', () => {
  assert.is(loadConfig(file('network:\n  id: home\n', 0o644), {}).config.network.id, 'home');
  const envOnly = 'network: {id: home}\nauth:\n  mode: bearer\n  tokens: [{id: ops, value_env: OPS, scopes: [admin]}]\n';
  const pairings = JSON.stringify([{ id: 'p', remote_network_id: 'n', remote_base_url: 'https://n.example', token: 't' }]);
  const { config } = loadConfig(file(envOnly, 0o644), { OPS: 'x', SERVICE_PAIRINGS_JSON: pairings });
  assert.is(config.auth.tokens[0]!.value, 'x');
  assert.is(config.pairings.length, 1);
});

test('listen addresses parse in all three forms and bad ones say why', () => {
  assert.equal(parseListenAddr('127.0.0.1:8787'), { host: '127.0.0.1', port: 8787 });
  assert.equal(parseListenAddr('[::1]:0'), { host: '::1', port: 0 });
  assert.equal(parseListenAddr(':9000'), { host: '', port: 9000 });
  assert.equal(parseListenAddr('localhost:80'), { host: 'localhost', port: 80 });
  assert.throws(() => parseListenAddr('8787'), /no port/);
  assert.throws(() => parseListenAddr('::1:8787'), /brackets/);
  assert.throws(() => parseListenAddr('host:99999'), /0 to 65535/);
  assert.match(
    errorOf(() => parse({ network: { id: 'a' }, server: { listen_addr: 'nope' } })),
    /^svc\.yaml: server\.listen_addr: must be host:port/,
  );
});

test('loopback hosts are 127.0.0.0/8, ::1 and localhost only', () => {
  for (const h of ['127.0.0.1', '127.5.6.7', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1']) assert.ok(isLoopbackHost(h), h);
  for (const h of ['', '0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '128.0.0.1']) assert.not.ok(isLoopbackHost(h), h);
});

test('binding open mode to 0.0.0.0 warns about the posture', () => {
  const { warnings } = parse({ network: { id: 'a' }, server: { listen_addr: '0.0.0.0:8787' } });
  assert.is(warnings.length, 1);
  const [w] = warnings;
  assert.is(w!.severity, 'warning');
  assert.is(w!.code, 'insecure_bind');
  assert.match(w!.action!, /auth\.mode: bearer/);
  assert.match(w!.action!, /loopback/);
  assert.equal(
    postureWarnings(parse({ network: { id: 'a' }, server: { listen_addr: ':8787' }, auth: { mode: 'none' } }).config).map((x) => x.code),
    ['insecure_bind'],
  );
});

test('no posture warning on loopback or for bearer with token registration', () => {
  assert.equal(parse({ network: { id: 'a' }, server: { listen_addr: '[::1]:8787' } }).warnings, []);
  const bearer = (agent_registration: string) => ({
    network: { id: 'a' },
    server: { listen_addr: '0.0.0.0:8787' },
    auth: { mode: 'bearer', agent_registration, tokens: [{ id: 'ops', value: 'x', scopes: ['admin'] }] },
  });
  assert.equal(parse(bearer('token')).warnings, []);
  assert.equal(parse(bearer('disabled')).warnings, []);
  assert.equal(
    parse(bearer('open')).warnings.map((w) => w.code),
    ['insecure_bind'],
  );
});

test('the init config loads back cleanly in open mode', () => {
  const path = join(dir, 'svc.yaml');
  writeConfigFile(path, renderInitConfig({ network_id: 'home', name: 'Home Lab' }));
  const { config, warnings } = loadConfig(path, {});
  assert.equal(config.network, { id: 'home', name: 'Home Lab' });
  assert.is(config.server.listen_addr, '127.0.0.1:8787');
  assert.equal(config.auth, { mode: 'open', public_read: true, agent_registration: 'open', tokens: [] });
  assert.is(config.store.backend, 'sqlite');
  assert.is(config.store.path, join(dir, '.svc/svc.db'));
  assert.equal(
    config.rooms.map((r) => [r.id, r.visibility]),
    [['general', 'public']],
  );
  assert.equal(warnings, []);
});

test('the init config loads back cleanly in bearer mode with its admin token', () => {
  const path = join(dir, 'svc.yaml');
  const text = renderInitConfig({ network_id: 'work', name: 'yes: #1', auth_mode: 'bearer', admin_token: 'tok_Ab-9' });
  writeConfigFile(path, text);
  const { config, warnings } = loadConfig(path, {});
  assert.is(config.network.name, 'yes: #1');
  assert.equal(config.auth, {
    mode: 'bearer',
    public_read: false,
    agent_registration: 'token',
    tokens: [{ id: 'admin', value: 'tok_Ab-9', scopes: ['observe', 'write', 'admin', 'attach'] }],
  });
  assert.equal(warnings, []);
});

test('init refuses options that would not load', () => {
  assert.throws(() => renderInitConfig({ network_id: 'work', name: 'W', auth_mode: 'bearer' }), /needs at least one static token/);
  assert.throws(() => renderInitConfig({ network_id: 'bad id', name: 'W' }), /network\.id: must be an id/);
  assert.throws(() => renderInitConfig({ network_id: 'w', name: 'W', listen_addr: 'nowhere' }), /server\.listen_addr/);
});

test('writeConfigFile writes 0600, creates the folder and refuses to overwrite without force', () => {
  const path = join(dir, 'nested', 'svc.yaml');
  writeConfigFile(path, 'network: {id: a}\n');
  assert.is(statSync(path).mode & 0o777, 0o600);
  assert.is(
    errorOf(() => writeConfigFile(path, 'network: {id: b}\n')),
    `${path} exists; pass --force to overwrite`,
  );
  assert.is(readFileSync(path, 'utf8'), 'network: {id: a}\n');
  writeConfigFile(path, 'network: {id: b}\n', { force: true });
  assert.is(readFileSync(path, 'utf8'), 'network: {id: b}\n');
  assert.is(statSync(path).mode & 0o777, 0o600);
});

test.run();
