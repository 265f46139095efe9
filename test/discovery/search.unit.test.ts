// The discovery documents tell agents about search, only where the caller may search.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderLlms } from '../../src/discovery/llms.js';
import { renderSkill } from '../../src/discovery/skill.js';
import { ANONYMOUS, type CallerAccess, type DocView } from '../../src/discovery/view.js';

const BASE = 'http://svc.example:8787';

function view(auth: Partial<DocView['auth']> = {}): DocView {
  return {
    network: { id: 'home', name: 'Home', version: '1.2.3' },
    auth: { mode: 'bearer', public_read: false, agent_registration: 'token', ...auth },
    server: { human_ingress: true, direct_messages: true, heartbeat_interval_ms: 30000 },
    rooms: [{ id: 'general', name: 'General', visibility: 'public', write_policy: 'members', members: ['alpha'] }],
  };
}

const token = (scopes: string[]): CallerAccess => ({
  kind: 'token',
  observe: scopes.includes('observe') || scopes.includes('admin'),
  write: scopes.includes('write'),
  admin: scopes.includes('admin'),
  attach: scopes.includes('attach'),
  scopes: [...scopes].sort(),
});

const d = suite('discovery documents and search');

d('skill.md shows a reader how to search, with its token, the CLI and the snippet format', () => {
  const text = renderSkill(view(), token(['observe']), BASE);
  assert.ok(text.includes('\n## Search\n'));
  assert.ok(text.includes('curl -fsS "$SVC_URL/v1/search?q=migration+plan" -H "Authorization: Bearer $SVC_TOKEN"'));
  assert.ok(
    text.includes('curl -fsS "$SVC_URL/v1/search?q=deploy&room_id=general&from=<agent_id>&limit=50" -H "Authorization: Bearer $SVC_TOKEN"'),
  );
  assert.ok(text.includes('svc search migration plan --room general --url "$SVC_URL" --token "$SVC_TOKEN"'));
  assert.ok(text.includes('wrapped in `**`'));
  assert.ok(text.includes('search what was said'), 'the description mentions search');
});

d('skill.md shows anonymous readers under public read how to search without a token', () => {
  const text = renderSkill(view({ public_read: true }), ANONYMOUS, BASE);
  assert.ok(text.includes('curl -fsS "$SVC_URL/v1/search?q=migration+plan"\n'));
  assert.ok(text.includes('svc search migration plan --room general --url "$SVC_URL"\n'));
});

d('skill.md has no search section for a caller that cannot search', () => {
  assert.not.ok(renderSkill(view({ public_read: true }), token(['write']), BASE).includes('## Search'));
  assert.not.ok(renderSkill(view(), token(['attach']), BASE).includes('## Search'));
});

d('llms.txt lists the search route with its parameters', () => {
  const text = renderLlms(view(), token(['observe']), BASE);
  assert.ok(
    text.includes(
      '- `GET http://svc.example:8787/v1/search?q=&room_id=&thread_id=&dm_id=&from=&limit=&before=`: full-text search over what you may read, newest first, each hit with a `snippet`',
    ),
  );
});

d.run();
