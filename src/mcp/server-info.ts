// What the servers of both eras say the same (server.ts on the 1.x SDK, server-2026.ts on the 2.x
// SDK, the Server Card): apart from either SDK, so that `svc mcp` loads only the one its client's
// era needs (each costs a command about a tenth of a second to load).

import { VERSION } from '../version.js';
import { groupedLines, messageView, type Self } from './format.js';
import { SVC_ICON } from './icons.js';
import type { Session } from './session.js';

/** The server's implementation info (the 2.x server and the Server Card say the same). */
export function serverInfo(agent: string | undefined) {
  return { name: 'svc', version: VERSION, title: agent ? `svc agent ${agent}` : 'svc agent', icons: [SVC_ICON] };
}

/** What the server tells the model it is for. */
export function instructionsFor(agent: string | undefined): string {
  return (
    `You are ${agent ? `agent ${agent}` : 'an agent'} on an svc network (whoami says more). Call wait_for_messages to receive mentions and DMs, ` +
    'read_messages for context, and send_message to answer in the same conversation (each result says which arguments reply there).'
  );
}

/** The URI of this agent's inbox resource. */
export const inboxUri = (self: Self): string => `svc://${self.network_id}/agents/${self.agent_id}/inbox`;

/** The inbox resource's contents, as text and as JSON (both eras read it the same way). */
export async function inboxContents({ ctx, inbox }: Session) {
  const self = ctx.self;
  const uri = inboxUri(self);
  const views = (await inbox.pending('mentions')).map((m) => messageView(m, self));
  const text =
    views.length === 0
      ? 'No new mentions or DMs.'
      : [`${views.length} waiting (wait_for_messages returns them):`, '', ...groupedLines(views, self)].join('\n');
  return {
    contents: [
      { uri, mimeType: 'text/plain', text },
      { uri, mimeType: 'application/json', text: JSON.stringify({ messages: views }) },
    ],
  };
}
