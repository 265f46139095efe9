// The pure parts of kept credentials and `svc connect`: the folder key of a network on a server,
// and merging one server entry into an MCP client's JSON or TOML config.

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { credentialDirs, findToken, keepToken, keptAgents, readKeptToken, scopeKey } from '../../src/config/agent-credentials.js';
import { codexTable, mergeCodexToml, mergeMcpJson, type ServerEntry } from '../../src/cli/commands/connect/client-config.js';

const entry: ServerEntry = { command: 'svc', args: ['mcp', '--config', '/p/svc.yaml', '--agent', 'alpha'], env: {} };

const keys = suite('the folder of a network on a server');

keys('names the network and the server; loopback spellings read alike; another port is another folder', () => {
  assert.is(scopeKey('home', 'http://127.0.0.1:8787'), 'home@127.0.0.1-8787');
  assert.is(scopeKey('home', 'http://localhost:8787'), 'home@127.0.0.1-8787');
  assert.is(scopeKey('home', 'http://[::1]:8787'), 'home@127.0.0.1-8787');
  assert.is.not(scopeKey('home', 'http://127.0.0.1:8788'), scopeKey('home', 'http://127.0.0.1:8787'));
  assert.is(scopeKey('home', 'https://svc.example.com'), 'home@https-svc.example.com-443');
});

keys('keeps beside the config first, reads HOME too, owner-only, and copies a token from an old place', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'svc-kept-'));
  try {
    const scope = {
      networkId: 'home',
      url: 'http://127.0.0.1:9000',
      configFile: path.join(root, 'cfg', 'svc.yaml'),
      home: path.join(root, 'h'),
    };
    const [beside, home] = credentialDirs(scope);
    assert.is(beside, path.join(root, 'cfg', '.svc', 'agents', 'home@127.0.0.1-9000'));
    assert.is(home, path.join(root, 'h', '.svc', 'agents', 'home@127.0.0.1-9000'));
    const file = keepToken(scope, 'alpha', 'agt_v1_a');
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.is(statSync(beside!).mode & 0o777, 0o700);
    keepToken({ networkId: scope.networkId, url: scope.url, home: scope.home }, 'beta', 'agt_v1_b');
    assert.is(readKeptToken(scope, 'beta')?.token, 'agt_v1_b');
    assert.equal(keptAgents(scope), ['alpha', 'beta']);
    assert.is(readKeptToken(scope, '../x'), undefined);
    const old = path.join(root, 'old-token');
    writeFileSync(old, 'agt_v1_old\n');
    const found = findToken(scope, 'gamma', [path.join(root, 'missing'), old]);
    assert.is(found?.token, 'agt_v1_old');
    assert.is(found?.migratedFrom, old);
    assert.is(readKeptToken(scope, 'gamma')?.file, path.join(beside!, 'gamma.token'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

keys.run();

const merge = suite('merging into an MCP client config');

merge('JSON: other servers and keys are kept, the entry of the same name replaced, no env block without a token', () => {
  const before = JSON.stringify({ mcpServers: { other: { command: 'x' }, svc: { command: 'old' } }, theme: 'dark' });
  const { text, replaced } = mergeMcpJson(before, 'svc', entry);
  assert.ok(replaced);
  const doc = JSON.parse(text);
  assert.equal(doc.mcpServers.other, { command: 'x' });
  assert.is(doc.theme, 'dark');
  assert.equal(doc.mcpServers.svc, { command: 'svc', args: entry.args });
  assert.not.ok(mergeMcpJson(undefined, 'svc', entry).replaced);
  assert.throws(() => mergeMcpJson('{ not json', 'svc', entry), /not valid JSON/);
  assert.throws(() => mergeMcpJson('{"mcpServers": []}', 'svc', entry), /mcpServers is not an object/);
});

merge('TOML: only [mcp_servers.NAME] and its sub-tables are replaced (quoted headers too); comments and other tables stay', () => {
  const before = [
    '# my codex',
    'model = "o3"',
    '',
    '[mcp_servers."svc"]',
    'command = "old"',
    '',
    '[mcp_servers.svc.env]',
    'SVC_TOKEN = "agt_v1_old"',
    '',
    '[mcp_servers.svc-other]',
    'command = "keep"',
    '',
    '[[profiles.list]]',
    'name = "a"',
  ].join('\n');
  const { text, replaced } = mergeCodexToml(before, 'svc', codexTable('svc', entry));
  assert.ok(replaced);
  assert.not.match(text, /old|agt_v1_old/);
  assert.match(
    text,
    /^# my codex\nmodel = "o3"\n\n\[mcp_servers\.svc\]\ncommand = "svc"\nargs = \["mcp", "--config", "\/p\/svc\.yaml", "--agent", "alpha"\]\ntool_timeout_sec = \d+\n\n\[mcp_servers\.svc-other\]\ncommand = "keep"\n\n\[\[profiles\.list\]\]\nname = "a"\n$/,
  );
  const added = mergeCodexToml('model = "o3"\n', 'svc', codexTable('svc', { ...entry, env: { SVC_TOKEN: 't' } }));
  assert.not.ok(added.replaced);
  assert.match(added.text, /^model = "o3"\n\n\[mcp_servers\.svc\]\n[\s\S]*\n\[mcp_servers\.svc\.env\]\nSVC_TOKEN = "t"\n$/);
  assert.is(mergeCodexToml(undefined, 'svc', ['[mcp_servers.svc]']).text, '[mcp_servers.svc]\n');
});

merge.run();
