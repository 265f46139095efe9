// Pure parts of MCP over HTTP: which agent a principal acts as on /v1/mcp, and the HTTP entries
// `--remote` writes for each client.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AGENT_TOKEN_SCOPES, type Principal } from '../../src/auth/principal.js';
import { mcpAgentOf } from '../../src/mcp-http/identity.js';
import {
  claudeAddArgs,
  codexHttpTable,
  httpJsonEntry,
  mcpUrlOf,
  remoteSnippet,
  tokenEnvVar,
} from '../../src/cli/commands/connect/remote-config.js';

const agent: Principal = { kind: 'agent', agentId: 'beta', scopes: AGENT_TOKEN_SCOPES, credentialKey: 'agent:x' };
const stat = (agents?: string[]): Principal => ({
  kind: 'static',
  tokenId: 't',
  scopes: new Set(['observe', 'write', 'attach']),
  ...(agents ? { agents: new Set(agents) } : {}),
  credentialKey: 'token:t',
});

const who = suite('who a /v1/mcp request acts as');

who('an agent token acts as its agent, and may not name another', () => {
  assert.equal(mcpAgentOf(agent, undefined), { ok: true, agentId: 'beta' });
  assert.equal(mcpAgentOf(agent, 'beta'), { ok: true, agentId: 'beta' });
  const other = mcpAgentOf(agent, 'alpha');
  assert.is(other.ok, false);
});

who('a static token acts as the agent it names and may assert, or the one agent of its list; otherwise none', () => {
  assert.equal(mcpAgentOf(stat(['alpha']), undefined), { ok: true, agentId: 'alpha' });
  assert.equal(mcpAgentOf(stat(), 'ops'), { ok: true, agentId: 'ops' });
  assert.is(mcpAgentOf(stat(['alpha']), 'beta').ok, false);
  assert.is(mcpAgentOf(stat(['alpha', 'gamma']), undefined).ok, false);
  const bare = mcpAgentOf(stat(), undefined);
  assert.ok(!bare.ok && /acts as one agent/.test(bare.reason));
  assert.is(mcpAgentOf({ kind: 'anonymous' }, 'beta').ok, false);
  assert.is(mcpAgentOf(stat(), '../etc').ok, false, 'the header must be an agent id');
  assert.equal(mcpAgentOf({ kind: 'trusted', credentialKey: 'anonymous' }, 'x'), { ok: true, agentId: 'x' });
});

who.run();

const cfg = suite('the HTTP entries of --remote');
const e = { url: mcpUrlOf('https://svc.example.org/'), token: 'agt_v1_abc' };

cfg('each client gets the URL of /v1/mcp with the token where it takes one', () => {
  assert.is(e.url, 'https://svc.example.org/v1/mcp');
  assert.equal(httpJsonEntry('claude', e), { type: 'http', url: e.url, headers: { Authorization: 'Bearer agt_v1_abc' } });
  assert.equal(httpJsonEntry('cursor', { ...e, agent: 'alpha' }), {
    url: e.url,
    headers: { Authorization: 'Bearer agt_v1_abc', 'X-Svc-Agent': 'alpha' },
  });
  assert.equal(codexHttpTable('svc', e, tokenEnvVar('my.agent')), [
    '[mcp_servers.svc]',
    'url = "https://svc.example.org/v1/mcp"',
    'bearer_token_env_var = "SVC_TOKEN_MY_AGENT"',
    'tool_timeout_sec = 330',
  ]);
  assert.equal(claudeAddArgs('svc', e), [
    'mcp',
    'add',
    '--transport',
    'http',
    '--scope',
    'project',
    'svc',
    e.url,
    '--header',
    'Authorization: Bearer agt_v1_abc',
  ]);
  assert.match(
    remoteSnippet('claude', 'svc', e, 'X').where[1]!,
    /claude mcp add --transport http --scope project svc https:\/\/svc\.example\.org\/v1\/mcp --header 'Authorization: Bearer agt_v1_abc'/,
  );
  assert.not.match(remoteSnippet('codex', 'svc', e, 'SVC_TOKEN_X').snippet.join('\n'), /agt_v1_/);
});

cfg.run();
