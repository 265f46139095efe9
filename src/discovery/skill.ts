// /skill.md: what this caller can do on this network, as an agent skill file. Pure.
// Read-only callers get no send or admin examples; admins also get clean-up and `svc apply`.

import { doc, fence } from './markdown.js';
import {
  acceptsRegistered,
  attachFlow,
  describeAccess,
  envBlock,
  mayAttach,
  readExamples,
  registration,
  registrationLine,
  roomsTable,
  sendExamples,
  title,
} from './sections.js';
import type { CallerAccess, DocView } from './view.js';
import { maySearch, searchSection } from './search-doc.js';
import { mayUseMcp, mcpSection } from './mcp-doc.js';

function frontMatter(v: DocView, base: string): string {
  // JSON strings are valid YAML double-quoted scalars; names are flattened to one line first.
  const name = `svc-${v.network.id}`.toLowerCase();
  const description = `Talk with agents and people on the svc network ${v.network.name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')} (${v.network.id}) at ${base}: read rooms and history, search what was said, send messages, attach over WebSocket.`;
  return `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---`;
}

function facts(v: DocView, a: CallerAccess): string {
  const authLine =
    v.auth.mode === 'none'
      ? 'off (`auth.mode: none`): no credentials, for trusted local use'
      : `\`auth.mode: ${v.auth.mode}\`, public read ${v.auth.public_read ? 'on (anyone may read public rooms)' : 'off (reading needs an `observe` token)'}`;
  return `## This network

- Authentication: ${authLine}
- Your access: ${describeAccess(v, a)}
- Agent registration: ${registrationLine(v)}
- Rooms that accept registered agents (not only members): ${acceptsRegistered(v)}
- Direct messages: ${v.server.direct_messages ? 'on' : 'off'}; messages from people: ${v.server.human_ingress ? 'on' : 'off'}`;
}

function adminSection(): string {
  // Placeholders, never a real id: an agent running these blindly must not delete a live room.
  const room = '<room_id>';
  return `## Operate (your token has \`admin\`)

Clean up what is no longer used. Removal is soft: history is kept, the room stops taking reads and sends, an agent's registration is deleted so its generated token stops working.

${fence(
  'sh',
  `curl -fsS -X DELETE "$SVC_URL/v1/rooms/${room}" -H "Authorization: Bearer $SVC_TOKEN"
curl -fsS -X DELETE "$SVC_URL/v1/agents/<agent_id>" -H "Authorization: Bearer $SVC_TOKEN"
curl -fsS -X PATCH "$SVC_URL/v1/rooms/${room}/members" -H "Authorization: Bearer $SVC_TOKEN" -H 'content-type: application/json' \\
  -d '{"add":["<agent_id>"],"remove":["<agent_id>"]}'
# the same with the CLI
svc rooms delete ${room} --url "$SVC_URL" --token "$SVC_TOKEN"
svc agents delete <agent_id> --url "$SVC_URL" --token "$SVC_TOKEN"`,
)}

Declared configuration: keep rooms, members, visibility, write policies and token-agent bindings in \`svc.yaml\` and reconcile the running server with \`svc apply svc.yaml --url "$SVC_URL" --token "$SVC_TOKEN"\` (\`POST /v1/apply\`). Apply never removes undeclared rooms or agents and never deletes messages.`;
}

/** Renders /skill.md for a caller at `base`. */
export function renderSkill(v: DocView, a: CallerAccess, base: string): string {
  const anonOpen = a.kind === 'anonymous' && v.auth.agent_registration === 'open' && v.auth.mode !== 'none';
  const canRead = a.observe || v.auth.public_read || v.auth.mode === 'none';
  const canSend = a.write || anonOpen;
  return doc(
    frontMatter(v, base),
    `# ${title(v)}`,
    `svc ${v.network.version} at ${base}. Generated from the live configuration for your access; fetch it again when something changes. Step-by-step joining: ${base}/install.md.`,
    facts(v, a),
    `## Rooms you can see`,
    roomsTable(v, a),
    envBlock(v, a, base),
    canRead && `## Read`,
    canRead && readExamples(v, a),
    maySearch(v, a) && searchSection(v, a),
    canSend && `## Send`,
    canSend && anonOpen && `Register first (see below), then send with your agent token in \`SVC_TOKEN\`.`,
    canSend && sendExamples(v, a, anonOpen),
    !canSend &&
      a.kind !== 'anonymous' &&
      `Your credential is read-only: it cannot send messages. Ask the operator for a token with the \`write\` scope, or an agent token, to take part.`,
    (mayAttach(v, a) || anonOpen) && `## Join as an agent`,
    (mayAttach(v, a) || anonOpen) && registration(v, a),
    mayAttach(v, a) && attachFlow(v, a, base),
    mayUseMcp(v, a) && mcpSection(v, a, base),
    `## Rules`,
    `- Persist an \`agent_token\` before waking a runtime or sending: it is shown once and cannot be recovered.
- The first claim of an agent id wins; ids are not proof of identity.
- Each conversation maps to one runtime session key: \`service:${v.network.id}:room:<room_id>\`, \`service:${v.network.id}:thread:<thread_id>\`, \`service:${v.network.id}:dm:<dm_id>\`.
- Unknown JSON fields are ignored; errors are \`{"error", "code"}\` with a stable code.`,
    a.admin && adminSection(),
  );
}
