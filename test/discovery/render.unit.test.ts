// The discovery renderers are pure functions of (view, access, base URL): exact fragments.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { baseUrlOf, validHost, wsUrl } from '../../src/discovery/base-url.js';
import { renderInstall } from '../../src/discovery/install.js';
import { renderLlms } from '../../src/discovery/llms.js';
import { isDirectLoopback, isLoopbackAddress } from '../../src/discovery/loopback.js';
import { mdText, safeId } from '../../src/discovery/markdown.js';
import { renderSkill } from '../../src/discovery/skill.js';
import { ANONYMOUS, type CallerAccess, type DocView } from '../../src/discovery/view.js';

const BASE = 'http://svc.example:8787';

function view(over: Partial<DocView> = {}, auth: Partial<DocView['auth']> = {}): DocView {
  return {
    network: { id: 'home', name: 'Home', version: '1.2.3' },
    auth: { mode: 'bearer', public_read: false, agent_registration: 'token', ...auth },
    server: { human_ingress: true, direct_messages: true, heartbeat_interval_ms: 30000 },
    rooms: [
      { id: 'general', name: 'General', visibility: 'public', write_policy: 'members', members: ['alpha'] },
      { id: 'lobby', name: 'Lobby', visibility: 'public', write_policy: 'registered_agents', members: [] },
    ],
    ...over,
  };
}

const token = (scopes: string[], extra: Partial<CallerAccess> = {}): CallerAccess => ({
  kind: 'token',
  observe: scopes.includes('observe') || scopes.includes('admin'),
  write: scopes.includes('write'),
  admin: scopes.includes('admin'),
  attach: scopes.includes('attach'),
  scopes: [...scopes].sort(),
  ...extra,
});

const OBSERVER = token(['observe']);
const WRITER = token(['write']);
const ADMIN = token(['observe', 'write', 'admin', 'attach']);
const AGENT: CallerAccess = {
  kind: 'agent',
  observe: true,
  write: true,
  admin: false,
  attach: true,
  scopes: ['attach', 'observe', 'write'],
  agentId: 'alpha',
};

const TRUSTED: CallerAccess = {
  kind: 'trusted',
  observe: true,
  write: true,
  admin: true,
  attach: true,
  scopes: ['admin', 'attach', 'observe', 'write'],
};
const TRUSTED_DOCS = (v: DocView) => [
  renderInstall(v, TRUSTED, BASE),
  renderSkill(v, TRUSTED, BASE).split('## Operate')[0]!,
  renderLlms(v, TRUSTED, BASE),
];

const r = suite('the discovery renderers');

r('install.md gives an anonymous caller of an open network the tokenless register command and the attach URL', () => {
  const text = renderInstall(view({}, { mode: 'open', public_read: true, agent_registration: 'open' }), ANONYMOUS, BASE);
  assert.ok(text.startsWith('# Join Home (`home`) as an agent\n'));
  assert.ok(text.includes('export SVC_URL="http://svc.example:8787"'));
  assert.ok(
    text.includes(
      `curl -fsS -X POST "$SVC_URL/v1/agents/register" -H 'content-type: application/json' -d '{"requested_agent_id":"my-agent","name":"My Agent"}' > registration.json`,
    ),
  );
  assert.ok(text.includes('export SVC_TOKEN="$(jq -r .agent_token registration.json)"'));
  assert.ok(text.includes("new WebSocket('ws://svc.example:8787/v1/attach'"));
  assert.ok(text.includes('`{"op":"IDENTIFY","network_id":"home",'));
  assert.ok(text.includes('curl -fsS "$SVC_URL/v1/network"\n'), 'public read needs no token to check the network');
  assert.ok(text.includes('## 4. Send a message'));
});

r('install.md states its loopback carve-out as SPEC.md does', () => {
  const text = renderInstall(view(), ANONYMOUS, BASE);
  assert.ok(
    text.includes(
      '- A direct loopback request to the server (from its own machine, with no reverse-proxy headers) is always answered and never gets 401: a valid `observe` or `admin` credential gets the same document as through a proxy; no credential, an invalid one or one without those scopes gets the anonymous version.\n- Any other request: a token with the `observe` or `admin` scope.\n',
    ),
  );
  assert.ok(renderInstall(view({}, { public_read: true }), ANONYMOUS, BASE).includes('- Any other request: anyone: public read is on.\n'));
});

r('install.md for an anonymous caller of a protected network says to get a token and lists no read or send steps', () => {
  const text = renderInstall(view(), ANONYMOUS, BASE);
  assert.ok(text.includes('This network is protected: ask its operator for a token'));
  assert.ok(text.includes('curl -fsS "$SVC_URL/v1/network" -H "Authorization: Bearer $SVC_TOKEN"'));
  assert.not.ok(text.includes('/v1/messages'));
  assert.not.ok(text.includes('## 4.'));
});

r('install.md for a token registration network shows the register command with the bearer token', () => {
  const text = renderInstall(view(), ADMIN, BASE);
  assert.ok(
    text.includes(
      `curl -fsS -X POST "$SVC_URL/v1/agents/register" -H "Authorization: Bearer $SVC_TOKEN" -H 'content-type: application/json'`,
    ),
  );
  assert.ok(text.includes('"room_id":"lobby"'), 'the send example uses a room that accepts registered agents');
});

r('skill.md for a read-only caller has read examples and no send or admin examples', () => {
  const text = renderSkill(view(), OBSERVER, BASE);
  assert.ok(text.includes('curl -fsS "$SVC_URL/v1/rooms/general/messages?limit=50" -H "Authorization: Bearer $SVC_TOKEN"'));
  assert.ok(text.includes('Your credential is read-only: it cannot send messages.'));
  assert.not.ok(text.includes('/v1/messages"'));
  assert.not.ok(text.includes('-X POST'));
  assert.not.ok(text.includes('-X DELETE'));
  assert.not.ok(text.includes('svc apply'));
});

r('skill.md lists the visible rooms with who may write and whether registered agents are accepted', () => {
  const text = renderSkill(view(), OBSERVER, BASE);
  assert.ok(text.includes('| `general` | General | public | members | `alpha` |'));
  assert.ok(text.includes('| `lobby` | Lobby | public | members and registered agents | - |'));
  assert.ok(text.includes('- Rooms that accept registered agents (not only members): yes, `lobby` (`write_policy: registered_agents`)'));
  assert.ok(text.includes('- Agent registration: by token: registering an agent needs a token with the `attach` or `admin` scope'));
});

r('skill.md says when no room accepts registered agents and when registration is open', () => {
  const v = view(
    { rooms: [{ id: 'general', name: 'General', visibility: 'public', write_policy: 'members', members: [] }] },
    { mode: 'open', public_read: true, agent_registration: 'open' },
  );
  const text = renderSkill(v, ANONYMOUS, BASE);
  assert.ok(text.includes('- Rooms that accept registered agents (not only members): no: every room you can see needs membership'));
  assert.ok(text.includes('- Agent registration: open: anyone may claim an unused agent id without a token'));
});

r('skill.md for a write-only caller lists no rooms and sends to a placeholder room', () => {
  const text = renderSkill(view({ rooms: [] }), WRITER, BASE);
  assert.ok(text.includes('Your credential cannot read rooms, so none are listed here.'));
  assert.ok(text.includes('"target":{"kind":"room","room_id":"<room_id>"}'));
  assert.not.ok(text.includes('## Read'));
});

r('skill.md for an admin adds clean-up commands with placeholders and the pointer to svc apply', () => {
  const text = renderSkill(view(), ADMIN, BASE);
  assert.ok(text.includes('curl -fsS -X DELETE "$SVC_URL/v1/rooms/<room_id>" -H "Authorization: Bearer $SVC_TOKEN"'));
  assert.ok(text.includes('curl -fsS -X DELETE "$SVC_URL/v1/agents/<agent_id>" -H "Authorization: Bearer $SVC_TOKEN"'));
  assert.ok(text.includes('svc apply svc.yaml --url "$SVC_URL" --token "$SVC_TOKEN"'));
  assert.ok(
    text.startsWith(
      '---\nname: "svc-home"\ndescription: "Talk with agents and people on the svc network Home (home) at http://svc.example:8787',
    ),
  );
});

r('skill.md for an agent token sends as that agent into one of its rooms', () => {
  const text = renderSkill(view(), AGENT, BASE);
  assert.ok(text.includes('- Your access: the agent token of `alpha`'));
  assert.ok(text.includes('"target":{"kind":"room","room_id":"general"},"from":{"type":"agent","id":"alpha"}'));
  assert.ok(text.includes('You already are agent `alpha`'));
});

r('documents of a network without authentication show no Authorization headers', () => {
  const v = view({}, { mode: 'none' });
  for (const text of TRUSTED_DOCS(v)) assert.not.ok(text.includes('Authorization'), text.slice(0, 80));
});

r('llms.txt links the other documents and the API at this base URL', () => {
  const text = renderLlms(view(), OBSERVER, BASE);
  assert.ok(text.startsWith('# Home (`home`)\n\n> A self-hosted svc network at http://svc.example:8787 '));
  assert.ok(text.includes('- [Install](http://svc.example:8787/install.md): '));
  assert.ok(text.includes('- [Skill](http://svc.example:8787/skill.md): '));
  assert.ok(text.includes('- `ws://svc.example:8787/v1/attach`: WebSocket attachment'));
  assert.ok(
    text.includes('- [General](http://svc.example:8787/v1/rooms/general/messages): room `general`, public, write policy `members`'),
  );
  assert.ok(text.includes('export SVC_TOKEN="<your token>"\ncurl -fsS "$SVC_URL/v1/network" -H "Authorization: Bearer $SVC_TOKEN"'));
});

r('names from config are flattened and escaped so they cannot inject Markdown', () => {
  const v = view({
    network: { id: 'home', name: 'Evil\n# Owned <script>', version: '1' },
    rooms: [{ id: 'r1', name: 'a|b](javascript:x)\n- [x]', visibility: 'public', write_policy: 'members', members: [] }],
  });
  const skill = renderSkill(v, OBSERVER, BASE);
  assert.ok(skill.includes('# Evil \\# Owned \\<script\\> (`home`)'));
  assert.ok(skill.includes('| `r1` | a\\|b\\]\\(javascript:x\\) - \\[x\\] | public |'));
  assert.not.ok(skill.includes('\n# Owned'));
  assert.ok(skill.includes('description: "Talk with agents and people on the svc network Evil # Owned <script> (home)'));
  assert.is(mdText('a*b_c`d'), 'a\\*b\\_c\\`d');
  assert.is(safeId('ok-id', '<x>'), 'ok-id');
  assert.is(safeId("x'; rm -rf /", '<x>'), '<x>');
});

r("skill.md tells an agent how to connect an MCP client over HTTP, with each client's entry; llms.txt lists /v1/mcp", () => {
  const text = renderSkill(view(), AGENT, BASE);
  assert.ok(text.includes('## Connect an MCP client over HTTP'));
  assert.ok(text.includes('MCP over Streamable HTTP at `http://svc.example:8787/v1/mcp`'));
  assert.ok(text.includes('claude mcp add --transport http svc "$SVC_URL/v1/mcp" --header "Authorization: Bearer $SVC_TOKEN"'));
  assert.ok(text.includes('svc connect claude --agent alpha --register --remote --url "$SVC_URL"'));
  assert.ok(text.includes('[mcp_servers.svc]\nurl = "http://svc.example:8787/v1/mcp"\nbearer_token_env_var = "SVC_TOKEN"'));
  assert.ok(
    text.includes('"url": "http://svc.example:8787/v1/mcp",\n      "headers": {\n        "Authorization": "Bearer <your agent token>"'),
  );
  assert.not.ok(renderSkill(view(), OBSERVER, BASE).includes('/v1/mcp'), 'a read-only token is not told to connect as an agent');
  assert.ok(renderLlms(view(), AGENT, BASE).includes('- `POST http://svc.example:8787/v1/mcp`: MCP over Streamable HTTP'));
});

r.run();

const u = suite('base URLs and loopback detection');

u('a valid Host header becomes the base URL; junk falls back to the bound address', () => {
  const fallback = { host: '127.0.0.1', port: 8787 };
  assert.is(baseUrlOf({ host: 'agents.example.com' }, false, fallback), 'http://agents.example.com');
  assert.is(baseUrlOf({ host: 'Agents.Example.com:8443' }, true, fallback), 'https://agents.example.com:8443');
  assert.is(baseUrlOf({ host: '[::1]:9000' }, false, fallback), 'http://[::1]:9000');
  assert.is(baseUrlOf({ host: 'evil.com/"$(id)' }, false, fallback), 'http://127.0.0.1:8787');
  assert.is(baseUrlOf({ host: 'example.com:99999' }, false, fallback), 'http://127.0.0.1:8787');
  assert.is(baseUrlOf({}, false, { host: '0.0.0.0', port: 1 }), 'http://127.0.0.1:1');
  assert.is(baseUrlOf({}, false, { host: '::', port: 1 }), 'http://[::1]:1');
});

u('forwarded proto and host are used when present and valid', () => {
  const fb = { host: '127.0.0.1', port: 1 };
  assert.is(
    baseUrlOf({ host: 'internal:8787', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'svc.example.org' }, false, fb),
    'https://svc.example.org',
  );
  assert.is(
    baseUrlOf({ host: 'internal:8787', 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'a.example, b.example' }, false, fb),
    'https://a.example',
  );
  assert.is(
    baseUrlOf({ host: 'internal:8787', 'x-forwarded-proto': 'gopher', 'x-forwarded-host': '<bad>' }, false, fb),
    'http://internal:8787',
  );
  assert.is(wsUrl('https://a.example', '/v1/attach'), 'wss://a.example/v1/attach');
  assert.is(validHost('a..b'), undefined);
});

u('only a loopback peer without proxy headers is a direct loopback request', () => {
  assert.ok(isLoopbackAddress('127.0.0.1'));
  assert.ok(isLoopbackAddress('127.10.0.3'));
  assert.ok(isLoopbackAddress('::1'));
  assert.ok(isLoopbackAddress('::ffff:127.0.0.1'));
  assert.not.ok(isLoopbackAddress('192.0.2.2'));
  assert.not.ok(isLoopbackAddress('::ffff:10.0.0.1'));
  assert.not.ok(isLoopbackAddress(undefined));
  assert.ok(isDirectLoopback('127.0.0.1', { host: 'localhost' }));
  assert.not.ok(isDirectLoopback('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }));
  assert.not.ok(isDirectLoopback('127.0.0.1', { forwarded: 'for=203.0.113.9' }));
  assert.not.ok(isDirectLoopback('::1', { via: '1.1 proxy' }));
  assert.not.ok(isDirectLoopback('192.0.2.2', {}));
});

u.run();
