import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, roomMessage } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const t = suite<{ s: AppServer }>('a freshly started server');
t.before(async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', members: ['alpha'] }] } });
});
t.after(async (ctx) => ctx.s.dispose());

t('answers health and readiness', async ({ s }) => {
  assert.equal((await s.get('/healthz')).body, { status: 'ok' });
  // A sqlite store reports its engine's mode: the page hook matches the pinned sql.js.
  assert.equal((await s.get('/readyz')).body, {
    status: 'ready',
    store: { backend: 'sqlite', page_tracking: true, on_demand_reads: true, redaction_scrub: 'done' },
  });
});

t('accepts a message from the credential that owns the agent and lists it', async ({ s }) => {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', 'hi'), TOKENS.alphaOnly.value);
  assert.is(r.status, 200, r.text);
  const h = await s.get('/v1/rooms/general/messages', TOKENS.observer.value);
  assert.is(h.body.messages.length, 1);
  assert.is(h.body.messages[0].id, r.body.message_id);
});

t.run();
