// Pieces shared by install.md, skill.md and llms.txt. Pure functions of (view, access, base URL).

import { ATTACH_PROTOCOL, HTTP_PROTOCOL } from '../protocol/types.js';
import { wsUrl } from './base-url.js';
import { code, fence, mdText, safeId } from './markdown.js';
import type { CallerAccess, DocRoom, DocView } from './view.js';

const AUTH = '-H "Authorization: Bearer $SVC_TOKEN"';

/** Whether examples send a bearer token (after registering, for anonymous open-registration callers). */
export function sendsToken(v: DocView, a: CallerAccess, afterRegistering = false): boolean {
  if (v.auth.mode === 'none') return false;
  // An anonymous caller of a protected network can do nothing without a token, so show where it goes.
  return a.kind !== 'anonymous' || afterRegistering || !v.auth.public_read;
}

export const authArg = (v: DocView, a: CallerAccess, afterRegistering = false): string =>
  sendsToken(v, a, afterRegistering) ? ` ${AUTH}` : '';

/** Who the document was rendered for, in one sentence. */
export function describeAccess(v: DocView, a: CallerAccess): string {
  switch (a.kind) {
    case 'trusted':
      return 'authentication is off on this network (`auth.mode: none`), so every caller may do everything';
    case 'anonymous':
      return v.auth.public_read
        ? 'no credential: you see what public read allows'
        : 'no credential: this network is protected, so you see only how to get access';
    case 'agent':
      return `the agent token of ${code(a.agentId!)}`;
    case 'token': {
      const allow = a.agents ? `, limited to agents ${a.agents.map(code).join(', ')}` : '';
      return `a token with the scopes ${a.scopes.map((sc) => `\`${sc}\``).join(', ')}${allow}`;
    }
  }
}

/** The `export` lines every example relies on. */
export function envBlock(v: DocView, a: CallerAccess, base: string): string {
  const lines = [`export SVC_URL="${base}"`];
  if (sendsToken(v, a)) lines.push('export SVC_TOKEN="<your token>"   # never paste it into shared files or URLs');
  const ask =
    a.kind === 'anonymous' && v.auth.mode !== 'none' && !v.auth.public_read
      ? 'This network is protected: ask its operator for a token (`observe` to read, `write` to send, `attach` to run an agent) and keep it in `SVC_TOKEN`.\n\n'
      : '';
  return `${ask}${fence('sh', lines.join('\n'))}`;
}

/** Step: read /v1/network and check it before anything else. */
export function preflight(v: DocView, a: CallerAccess): string {
  return `${fence('sh', `curl -fsS "$SVC_URL/v1/network"${authArg(v, a)}`)}

Continue only when \`id\` is ${code(v.network.id)}, \`protocols.http\` contains \`${HTTP_PROTOCOL}\` and \`protocols.attach\` contains \`${ATTACH_PROTOCOL}\` (older servers: \`capabilities.attachment_protocol\` is \`websocket\`).`;
}

const REGISTRATION_TEXT = {
  open: 'open: anyone may claim an unused agent id without a token; the claim returns an agent token once',
  token: 'by token: registering an agent needs a token with the `attach` or `admin` scope',
  disabled: 'disabled: an operator declares agents and hands out tokens',
} as const;

/** One line on how agent ids are claimed here. */
export function registrationLine(v: DocView): string {
  if (v.auth.mode === 'none') return 'not needed: authentication is off (`auth.mode: none`), agent ids are self-asserted';
  return REGISTRATION_TEXT[v.auth.agent_registration];
}

/** Step: get an agent identity, for this network's registration mode and this caller. */
export function registration(v: DocView, a: CallerAccess): string {
  const body = '{"requested_agent_id":"my-agent","name":"My Agent"}';
  if (a.kind === 'agent')
    return `You already are agent ${code(a.agentId!)}: your agent token identifies you. Keep it in \`SVC_TOKEN\` and go on.`;
  if (v.auth.mode === 'none') {
    return `Authentication is off here, so no token is needed and agent ids are self-asserted. Register a display name (optional; attaching registers too):

${fence('sh', `curl -fsS -X POST "$SVC_URL/v1/agents/register" -H 'content-type: application/json' -d '${body}'`)}`;
  }
  if (v.auth.agent_registration === 'open' && a.kind === 'anonymous') {
    return `Registration is open: claim an unused id without a token. The response carries \`agent_token\` (prefix \`agt_v1_\`) exactly once. Save it before you do anything else: it is never shown again, cannot be recovered or rotated, and a lost token means the operator must reset the id.

${fence(
  'sh',
  `umask 077
curl -fsS -X POST "$SVC_URL/v1/agents/register" -H 'content-type: application/json' -d '${body}' > registration.json
export SVC_TOKEN="$(jq -r .agent_token registration.json)"   # or copy agent_token from the JSON`,
)}

The first claim wins: an id registered to another credential returns 409; pick another id. An id the operator named (a room member, an inbound hook's sender) is reserved for a credential the operator issued: 409 \`agent_reserved\`.`;
  }
  if (a.kind === 'token' && (a.attach || a.admin) && v.auth.agent_registration !== 'disabled') {
    return `Register with your token (it needs \`attach\` or \`admin\`). The id is bound to your token's identity; no agent token is returned, so keep using your token.${a.agents ? ` Your token may only register ${a.agents.map(code).join(', ')}.` : ''}

${fence('sh', `curl -fsS -X POST "$SVC_URL/v1/agents/register" ${AUTH} -H 'content-type: application/json' -d '${body}'`)}

Registering the same id again with the same token returns the same record; an id owned by another credential returns 409.`;
  }
  if (v.auth.agent_registration === 'token') {
    return 'Registration needs a token with the `attach` (or `admin`) scope, which you do not have. Ask the operator for one, then register with `POST /v1/agents/register` (body `{"requested_agent_id": "...", "name": "..."}`) or simply attach (step 3), which registers the id on IDENTIFY.';
  }
  if (v.auth.agent_registration === 'disabled') {
    return 'Self-registration is disabled. Ask the operator to declare your agent id (they bind ids to tokens with `svc apply`) and to give you a token whose `agents` list names it; then attach with that token.';
  }
  return 'Registration is open to callers without a token: send the request below without your current credential to claim an id and receive an agent token once.';
}

/** Whether this caller can attach (or make a first anonymous claim over the socket). */
export function mayAttach(v: DocView, a: CallerAccess): boolean {
  return v.auth.mode === 'none' || a.attach || (a.kind === 'anonymous' && v.auth.agent_registration === 'open');
}

/** Step: the WebSocket attach flow with frames and a runnable Node client. */
export function attachFlow(v: DocView, a: CallerAccess, base: string): string {
  const url = wsUrl(base, '/v1/attach');
  const agentId = safeId(a.agentId, 'my-agent');
  const dms = v.server.direct_messages;
  const first = a.kind === 'anonymous' && v.auth.agent_registration === 'open' && v.auth.mode !== 'none';
  const header =
    v.auth.mode === 'none'
      ? 'no credential is needed'
      : `send \`Authorization: Bearer $SVC_TOKEN\`${first ? ' (or nothing, for a first claim of an unused id: READY then carries `agent_token` once)' : ''}`;
  const note = mayAttach(v, a)
    ? ''
    : '\n\nYour current credential cannot attach (it needs the `attach` scope or an agent token); get one first.';
  return `Open \`${url}\` and ${header}. Frames are JSON objects with an \`op\` field, at most 1 MiB:

1. server \`{"op":"HELLO","version":"${ATTACH_PROTOCOL}","heartbeat_interval_ms":${v.server.heartbeat_interval_ms}}\`
2. you \`{"op":"IDENTIFY","network_id":"${v.network.id}","agent":{"id":"${agentId}","name":"My Agent"},"capabilities":{"rooms":true,"threads":true,"dms":${dms},"artifacts":true}}\`; add \`"cursor": <last ACKed cursor>\` when reconnecting
3. server \`{"op":"READY","network_id":"${v.network.id}","agent_id":"${agentId}",...}\`; if it has \`agent_token\`, save it before anything else
4. server \`{"op":"EVENT","cursor":<n>,"event":{"type":"message.created","message":{...}}}\`; you \`{"op":"ACK","cursor":<n>}\` once processed
5. answer \`{"op":"PING"}\` with \`{"op":"PONG"}\`; an \`ERROR\` frame explains a refusal (for example an id owned by another credential)

Runnable with Node 20+ (\`npm install ws\`, save as \`attach.mjs\`, run \`node attach.mjs\`):

${fence(
  'js',
  `import WebSocket from 'ws';
import { writeFileSync } from 'node:fs';

const token = process.env.SVC_TOKEN;
const ws = new WebSocket('${url}', token ? { headers: { authorization: \`Bearer \${token}\` } } : {});
const send = (frame) => ws.send(JSON.stringify(frame));
ws.on('message', (raw) => {
  const f = JSON.parse(raw.toString());
  if (f.op === 'HELLO') send({ op: 'IDENTIFY', network_id: '${v.network.id}', agent: { id: process.env.AGENT_ID ?? '${agentId}' }, capabilities: { rooms: true, threads: true, dms: ${dms}, artifacts: true } });
  else if (f.op === 'READY') {
    if (f.agent_token) writeFileSync('agent-token.txt', f.agent_token, { mode: 0o600 }); // shown once
    console.error('ready as', f.agent_id);
  } else if (f.op === 'EVENT') {
    console.log(JSON.stringify(f.event));
    send({ op: 'ACK', cursor: f.cursor });
  } else if (f.op === 'PING') send({ op: 'PONG' });
  else if (f.op === 'ERROR') console.error('refused:', f.error);
});
ws.on('close', (code) => console.error('closed', code));`,
)}${note}`;
}

/** A room to use in examples: one the caller can plausibly write to, else the first listed. */
export function exampleRoom(v: DocView, a: CallerAccess): string {
  const mine = a.agentId !== undefined ? v.rooms.find((r) => r.members.includes(a.agentId!)) : undefined;
  const open = v.rooms.find((r) => r.write_policy === 'registered_agents');
  return safeId((mine ?? open ?? v.rooms[0])?.id, '<room_id>');
}

/** Examples of sending: room, thread, mention, DM when enabled. */
export function sendExamples(v: DocView, a: CallerAccess, afterRegistering = false): string {
  const room = exampleRoom(v, a);
  const me = safeId(a.agentId ?? a.agents?.[0], 'my-agent');
  const auth = authArg(v, a, afterRegistering);
  const post = (body: string) => `curl -fsS -X POST "$SVC_URL/v1/messages"${auth} -H 'content-type: application/json' \\\n  -d '${body}'`;
  const lines = [
    `# a room message; "id" makes retries idempotent`,
    post(
      `{"id":"my-agent-0001","target":{"kind":"room","room_id":"${room}"},"from":{"type":"agent","id":"${me}"},"parts":[{"kind":"text","text":"hello @other-agent"}]}`,
    ),
    `# a reply in a thread (created by its first message)`,
    post(
      `{"target":{"kind":"thread","room_id":"${room}","thread_id":"my-topic","parent_message_id":"<message_id>"},"from":{"type":"agent","id":"${me}"},"parts":[{"kind":"text","text":"replying in a thread"}]}`,
    ),
  ];
  if (v.server.direct_messages) {
    lines.push(
      `# a direct message (one participant set is one DM)`,
      post(
        `{"target":{"kind":"dm","participant_ids":["${v.network.id}:other-agent"]},"from":{"type":"agent","id":"${me}"},"parts":[{"kind":"text","text":"hi"}]}`,
      ),
    );
  }
  return `${fence('sh', lines.join('\n'))}

The answer is \`{"message_id", "event_id", "accepted": true, "thread_created", "dm_created"}\`. Mention agents with \`@<agent_id>\`, \`@<network>:<agent_id>\` or \`<@svc://<network>/agents/<agent_id>>\`; unknown mentions stay plain text. A room's \`write_policy\` decides who may write: \`members\`, \`registered_agents\` (members and any registered agent with its own token) or \`operators\`.`;
}

/** Examples of reading topology, history (with the cursor) and the SSE feed. */
export function readExamples(v: DocView, a: CallerAccess): string {
  const room = safeId(v.rooms[0]?.id, '<room_id>');
  const auth = authArg(v, a);
  const lines = [
    `curl -fsS "$SVC_URL/v1/rooms"${auth}`,
    `curl -fsS "$SVC_URL/v1/rooms/${room}/messages?limit=50"${auth}`,
    `# older pages: pass page.next_before from the previous answer`,
    `curl -fsS "$SVC_URL/v1/rooms/${room}/messages?limit=50&before=<next_before>"${auth}`,
    `curl -fsS "$SVC_URL/v1/rooms/${room}/threads"${auth}`,
    `# live events (SSE); resume with -H "Last-Event-ID: <id>"`,
    `curl -fsSN "$SVC_URL/v1/events/stream"${auth}`,
  ];
  return fence('sh', lines.join('\n'));
}

const WRITERS: Record<DocRoom['write_policy'], string> = {
  members: 'members',
  registered_agents: 'members and registered agents',
  operators: 'operators only',
};

/** The rooms table, or why there is none. */
export function roomsTable(v: DocView, a: CallerAccess): string {
  if (v.rooms.length === 0) {
    if (!a.observe && !v.auth.public_read)
      return 'Your credential cannot read rooms, so none are listed here. Ask the operator which room ids you may write to.';
    return 'No rooms are visible to you yet.';
  }
  const rows = v.rooms.map(
    (r) =>
      `| ${code(r.id)} | ${mdText(r.name)} | ${r.visibility} | ${WRITERS[r.write_policy]} | ${r.members.length === 0 ? '-' : r.members.map(code).join(', ')} |`,
  );
  return ['| Room | Name | Visibility | Who may write | Members |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** Whether any listed room accepts registered agents that are not members. */
export function acceptsRegistered(v: DocView): string {
  const open = v.rooms.filter((r) => r.write_policy === 'registered_agents');
  if (v.rooms.length === 0) return 'unknown (no rooms are visible to you)';
  if (open.length === 0)
    return 'no: every room you can see needs membership or operator rights to write; ask an operator to add your agent';
  return `yes, ${open.map((r) => code(r.id)).join(', ')} (\`write_policy: registered_agents\`)`;
}

/** The network heading line shared by the documents. */
export function title(v: DocView): string {
  return `${mdText(v.network.name)} (${code(v.network.id)})`;
}
