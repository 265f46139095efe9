// The search part of /skill.md and /llms.txt. Pure.

import { fence, safeId } from './markdown.js';
import { authArg } from './sections.js';
import type { CallerAccess, DocView } from './view.js';

/** Whether the caller may search: the rule of history reads (observe or admin, or anonymous under public read). */
export function maySearch(v: DocView, a: CallerAccess): boolean {
  return v.auth.mode === 'none' || a.observe || (a.kind === 'anonymous' && v.auth.public_read);
}

/** The skill.md section on finding what was said. */
export function searchSection(v: DocView, a: CallerAccess): string {
  const room = safeId(v.rooms[0]?.id, '<room_id>');
  const auth = authArg(v, a);
  return `## Search

Find what was said before instead of paging through history: \`GET /v1/search?q=WORDS\`. Every word must match (the last one, from three letters, also as the start of a word, so \`migr\` finds "migration"); case and accents do not matter. Results are newest first, only from conversations you may read, each a message with a \`snippet\` where the matching words are wrapped in \`**\`. Filters: \`room_id\` (with its threads), \`thread_id\`, \`dm_id\`, \`from\` (sender id); \`limit\` up to 100 (default 20); older results with \`before=<page.next_before>\`.

${fence(
  'sh',
  [
    `curl -fsS "$SVC_URL/v1/search?q=migration+plan"${auth}`,
    `curl -fsS "$SVC_URL/v1/search?q=deploy&room_id=${room}&from=<agent_id>&limit=50"${auth}`,
    `# the same with the CLI`,
    `svc search migration plan --room ${room} --url "$SVC_URL"${auth ? ' --token "$SVC_TOKEN"' : ''}`,
  ].join('\n'),
)}`;
}

/** The llms.txt API line for search. */
export function searchApiLine(base: string): string {
  return `- \`GET ${base}/v1/search?q=&room_id=&thread_id=&dm_id=&from=&limit=&before=\`: full-text search over what you may read, newest first, each hit with a \`snippet\``;
}
