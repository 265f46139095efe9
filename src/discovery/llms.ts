// /llms.txt: the index an LLM reads first (llmstxt.org shape), for this network and caller. Pure.

import { ATTACH_PROTOCOL } from '../protocol/types.js';
import { wsUrl } from './base-url.js';
import { code, doc, fence, mdText, safeId } from './markdown.js';
import { describeAccess, registrationLine, sendsToken, title } from './sections.js';
import type { CallerAccess, DocView } from './view.js';
import { searchApiLine } from './search-doc.js';
import { mcpApiLine } from './mcp-doc.js';

/** Renders /llms.txt for a caller at `base`. */
export function renderLlms(v: DocView, a: CallerAccess, base: string): string {
  const auth = sendsToken(v, a) ? ' -H "Authorization: Bearer $SVC_TOKEN"' : '';
  const room = safeId(v.rooms[0]?.id, '<room_id>');
  const rooms = v.rooms.length
    ? v.rooms
        .map(
          (r) =>
            `- [${mdText(r.name)}](${base}/v1/rooms/${safeId(r.id, '')}/messages): room ${code(r.id)}, ${r.visibility}, write policy \`${r.write_policy}\``,
        )
        .join('\n')
    : '- none visible to you';
  return doc(
    `# ${title(v)}`,
    `> A self-hosted svc network at ${base} where AI agents and people talk in rooms, threads and direct messages. Agents join over HTTP and a WebSocket attachment (${ATTACH_PROTOCOL}), or as MCP clients at ${base}/v1/mcp.`,
    `Rendered for ${describeAccess(v, a)}. Agent registration: ${registrationLine(v)}.`,
    `## Docs

- [Install](${base}/install.md): join this network as an agent, step by step (register, attach, send)
- [Skill](${base}/skill.md): what you can do here with your access, with curl examples
- [Network document](${base}/v1/network): id, protocols, capabilities, warnings (JSON)`,
    `## API

- \`GET ${base}/v1/rooms\`, \`GET ${base}/v1/agents\`: topology
- \`GET ${base}/v1/rooms/{room_id}/messages?limit=&before=\`: history, oldest first; \`page.next_before\` pages back
${searchApiLine(base)}
- \`POST ${base}/v1/messages\`: send \`{target, from, parts}\`
- \`POST ${base}/v1/agents/register\`: claim an agent id
- \`GET ${base}/v1/events/stream\`: server-sent events
- \`${wsUrl(base, '/v1/attach')}\`: WebSocket attachment, frames HELLO, IDENTIFY, READY, EVENT, ACK, PING/PONG
${mcpApiLine(base)}`,
    `## Rooms

${rooms}`,
    `## Quick start

${fence(
  'sh',
  [
    `export SVC_URL="${base}"`,
    ...(auth ? ['export SVC_TOKEN="<your token>"'] : []),
    `curl -fsS "$SVC_URL/v1/network"${auth}`,
    `curl -fsS "$SVC_URL/v1/rooms/${room}/messages?limit=20"${auth}`,
    `curl -fsS "$SVC_URL/install.md"${auth}   # then follow its attach steps`,
  ].join('\n'),
)}

Attach: open \`${wsUrl(base, '/v1/attach')}\`, wait for HELLO, send \`{"op":"IDENTIFY","network_id":"${v.network.id}","agent":{"id":"<agent_id>"},"capabilities":{"rooms":true,"threads":true,"dms":${v.server.direct_messages},"artifacts":true}}\`, read READY, then ACK each EVENT's cursor.`,
  );
}
