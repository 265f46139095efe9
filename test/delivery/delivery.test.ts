// Delivery an operator can see (#42 part 4): an agent whose runtime stops acknowledging shows its
// oldest waiting wake (fixed) growing older, is offered the wake again (the same EVENT) after the
// deadline, and after the bound raises the warning in GET /v1/network and `svc doctor`; an ACK
// clears it. On memory and sqlite (one server), and on Postgres with two instances: the runtime
// attached to one, the answers read from the other.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, TOKENS, type HttpServer, type Json } from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { attachAs, metricValue, type AttachClient } from '../helpers/live.js';
import { cli } from '../helpers/cli.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runsOf, startAgentRun, writeBot } from '../helpers/agent-run.js';
import { connectMcpHttp } from '../helpers/mcp-http.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';

const ADMIN = TOKENS.admin.value;
const MAX_OFFERS = 3;
/** Short deadlines, so a test sees the redelivery and the warning; the test never holds them to a time. */
const DELIVERY = { redeliver_after_ms: 400, max_offers: MAX_OFFERS, warn_after_ms: 1500 };
const config = (store: Json) => ({ store, server: { delivery: DELIVERY } });

const delivery = async (s: HttpServer, agent: string, token: string = ADMIN): Promise<Json> => {
  const r = await s.get(`/v1/agents/${agent}/delivery`, token);
  assert.is(r.status, 200, r.text);
  return r.body;
};
const warningOf = async (s: HttpServer): Promise<Json | undefined> =>
  ((await s.get('/v1/network', ADMIN)).body.warnings as Json[]).find((w) => w.code === 'agent_wakes_waiting');

/** The EVENT frames carrying this message, in arrival order. */
const offersOf = (c: AttachClient, messageId: string): Json[] =>
  c.events.filter((f) => f.event?.type === 'message.created' && f.event.message?.id === messageId);

/**
 * The scenario: `a` holds the attachment, `b` answers (the same server off Postgres). `cliToo`
 * runs `svc agents status` and `svc doctor` as processes.
 */
async function stopsAcknowledging(a: HttpServer, b: HttpServer, cliToo: boolean): Promise<void> {
  const room = await a.post('/v1/rooms', { id: 'ops', name: 'Ops', members: ['slow'] }, ADMIN);
  assert.is(room.status, 200, room.text);
  const { c } = await attachAs(a, { network_id: 'testnet', agent: { id: 'slow' } }, { token: ADMIN });
  try {
    const before = await delivery(b, 'slow');
    assert.is(before.pending_wakes, 0);
    assert.is(before.oldest_pending_at, null);
    await eventually(async () => (await delivery(b, 'slow')).attached, 5000, 'the attachment to be recorded');
    assert.equal(
      (await delivery(b, 'slow')).attachments.map((x: Json) => x.by),
      ['runtime'],
    );

    const sent = await a.post(
      '/v1/messages',
      {
        target: { kind: 'room', room_id: 'ops' },
        from: { type: 'human', id: 'op' },
        parts: [{ kind: 'text', text: '@slow look' }],
        mentions: ['slow'],
      },
      ADMIN,
    );
    assert.is(sent.status, 200, sent.text);
    const messageId = sent.body.message_id as string;
    const first = await c.next((f) => f.op === 'EVENT' && f.event?.message?.id === messageId);

    // Handed over, not acknowledged: pending, with the oldest fixed and its age growing.
    const waiting = await eventually(
      async () => {
        const d = await delivery(b, 'slow');
        return d.pending_wakes === 1 ? d : undefined;
      },
      5000,
      'the wake to be pending',
    );
    assert.is(waiting.wakes[0].message_id, messageId);
    assert.is(waiting.wakes[0].cursor, String(first.cursor));
    const since = waiting.oldest_pending_at as string;
    assert.ok(since, 'oldest_pending_at is set');

    // Offered again after the deadline: the same EVENT (cursor and event id), so the runtime can tell the copy.
    const again = await c.next((f) => f.op === 'EVENT' && f.event?.message?.id === messageId, 10_000);
    assert.is(again.cursor, first.cursor);
    assert.is(again.event.id, first.event.id);

    // After the bound: given up on, still pending, and reported.
    const gaveUp = await eventually(
      async () => {
        const d = await delivery(b, 'slow');
        return d.gave_up === 1 ? d : undefined;
      },
      15_000,
      'redelivery to give up',
    );
    assert.is(gaveUp.pending_wakes, 1);
    assert.is(gaveUp.oldest_pending_at, since, 'the oldest pending wake keeps its time');
    assert.is(gaveUp.wakes[0].offers, MAX_OFFERS);
    assert.ok(gaveUp.wakes[0].gave_up_at);
    assert.is(offersOf(c, messageId).length, MAX_OFFERS);
    const older = await eventually(
      async () => {
        const d = await delivery(b, 'slow');
        return d.oldest_pending_seconds > gaveUp.oldest_pending_seconds ? d : undefined;
      },
      5000,
      'the age of the oldest wake to grow',
    );
    assert.is(older.oldest_pending_at, since);

    const warning = await eventually(() => warningOf(b), 10_000, 'the agent_wakes_waiting warning');
    assert.match(warning.message, /slow \(1 waiting/);
    assert.is(warning.severity, 'warning');
    assert.is(await metricValue(b, ADMIN, 'svc_agent_pending_wakes{agent="slow"}'), 1);
    assert.ok(((await metricValue(b, ADMIN, 'svc_agent_oldest_pending_seconds{agent="slow"}')) ?? -1) >= 1);

    if (cliToo) {
      const status = await cli(['agents', 'status', 'slow', '--url', b.url, '--token', ADMIN]);
      assert.is(status.code, 0, status.stderr);
      assert.match(status.stdout, /pending wakes\s+1/);
      assert.match(status.stdout, new RegExp(`oldest pending\\s+${since.replace(/\./g, '\\.')}`));
      assert.match(status.stdout, new RegExp(`mention ${messageId} in room ops: cursor ${first.cursor}, offered ${MAX_OFFERS}x`));
      const all = await cli(['agents', 'status', '--json', '--url', b.url, '--token', ADMIN]);
      assert.is(all.code, 0, all.stderr);
      assert.is((JSON.parse(all.stdout).agents as Json[]).find((d) => d.agent_id === 'slow').pending_wakes, 1);
      const doctor = await cli(['doctor', '--url', b.url], { env: { SVC_TOKEN: ADMIN } });
      assert.match(doctor.stdout, /server warning\s+.*agent_wakes_waiting: .*slow \(1 waiting/);
    }

    // A late ACK clears it: nothing pending, the ACK time noted, the warning gone.
    c.ack(first.cursor);
    const cleared = await eventually(
      async () => {
        const d = await delivery(b, 'slow');
        return d.pending_wakes === 0 ? d : undefined;
      },
      5000,
      'the ACK to clear the wake',
    );
    assert.is(cleared.oldest_pending_at, null);
    assert.is(cleared.gave_up, 0);
    assert.ok(cleared.last_ack_at);
    assert.ok(Date.parse(cleared.last_ack_at) >= Date.parse(since));
    await eventually(async () => (await warningOf(b)) === undefined, 10_000, 'the warning to clear');
    assert.is(await metricValue(b, ADMIN, 'svc_agent_pending_wakes{agent="slow"}'), undefined);
  } finally {
    await c.close();
  }
  await eventually(async () => !(await delivery(b, 'slow')).attached, 5000, 'the detachment to be recorded');
}

/** Who may read an agent's delivery: admins and its owner; not an observer (403); an unknown agent is 404. */
async function whoMayRead(s: HttpServer): Promise<void> {
  assert.is((await s.get('/v1/agents/slow/delivery', TOKENS.observer.value)).status, 403);
  assert.is((await s.get('/v1/agents/nobody/delivery', ADMIN)).status, 404);
  assert.is((await s.get('/v1/agents/slow/delivery')).status, 401);
}

// ---------------------------------------------------------------------------------------------

for (const backend of ['memory', 'sqlite'] as const) {
  const t = suite<{ s: AppServer }>(`delivery on ${backend}`);
  t.before(async (ctx) => {
    ctx.s = await startApp({ config: config(backend === 'memory' ? { backend: 'memory' } : { backend: 'sqlite', path: '.svc/svc.db' }) });
  });
  t.after(async ({ s }) => {
    await s?.dispose();
  });
  t('an agent that stops acknowledging is offered its wake again, then reported, and an ACK clears it', async ({ s }) => {
    await stopsAcknowledging(s, s, backend === 'sqlite');
  });
  t('only the agent, its owner and operators read its delivery', async ({ s }) => {
    await whoMayRead(s);
  });
  t.run();
}

const own = suite('delivery read with agent tokens');
own('an agent token reads its own delivery and not another agent of the same room', async () => {
  // Bearer mode with open registration: anonymous claims get agent tokens; the admin makes the room.
  const s = await startApp({ config: { store: { backend: 'memory' }, auth: { agent_registration: 'open' } } });
  try {
    const claim = async (id: string) => {
      const r = await s.post('/v1/agents/register', { requested_agent_id: id });
      assert.is(r.status, 200, r.text);
      return r.body.agent_token as string;
    };
    const [wren, finch] = [await claim('wren'), await claim('finch')];
    assert.is((await delivery(s, 'wren', wren)).agent_id, 'wren');
    assert.is((await delivery(s, 'finch', finch)).agent_id, 'finch');
    // finch is visible to wren (a member of a room it may see), so the refusal is 403, not 404.
    assert.is((await s.post('/v1/rooms', { id: 'nest', name: 'Nest', members: ['wren', 'finch'] }, ADMIN)).status, 200);
    assert.is((await s.get('/v1/agents/finch', wren)).status, 200);
    const other = await s.get('/v1/agents/finch/delivery', wren);
    assert.is(other.status, 403, other.text);
    assert.is(other.body.code, 'forbidden');
    assert.is((await s.get('/v1/agents/finch/delivery', TOKENS.observer.value)).status, 403, 'an observer');
  } finally {
    await s.dispose();
  }
});
own.run();

const slow = suite<{ s: AppServer }>('delivery to svc agent run and to an MCP wait');
slow.before(async (ctx) => {
  ctx.s = await startApp({ config: config({ backend: 'memory' }) });
});
slow.after(async ({ s }) => {
  await s?.dispose();
});
slow('a turn longer than the deadline gets copies of its wake, runs once, and its ACK clears the wake', async ({ s }) => {
  assert.is((await s.post('/v1/rooms', { id: 'pond', name: 'Pond', members: ['turtle'] }, ADMIN)).status, 200);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-delivery-'));
  const runs = path.join(dir, 'runs');
  const p = await startAgentRun(
    ['--url', s.url, '--agent', 'turtle', '--state-dir', path.join(dir, 'state'), '--', process.execPath, writeBot(dir)],
    // The turn outlasts several deadlines (redeliver_after_ms is 400 ms): the copies come while it runs.
    { SVC_TOKEN: ADMIN, RUNS_FILE: runs, DELAY_MS: '6000', REPLY_TEXT: 'slowly' },
    dir,
  );
  try {
    const attached = await eventually(
      async () => {
        const d = await delivery(s, 'turtle');
        return d.attached ? d : undefined;
      },
      5000,
      'the attachment to be recorded',
    );
    assert.is(attached.attachments[0].by, 'agent_run');
    assert.match(attached.attachments[0].client, /^svc-agent-run\//);
    const sent = await s.post(
      '/v1/messages',
      {
        target: { kind: 'room', room_id: 'pond' },
        from: { type: 'human', id: 'op' },
        parts: [{ kind: 'text', text: '@turtle hurry' }],
        mentions: ['turtle'],
      },
      ADMIN,
    );
    assert.is(sent.status, 200, sent.text);
    const offered = await eventually(
      async () => {
        const d = await delivery(s, 'turtle');
        return d.wakes[0]?.offers >= 2 ? d : undefined;
      },
      5000,
      'the wake to be offered again during the turn',
    );
    assert.is(offered.wakes[0].message_id, sent.body.message_id);
    const cleared = await eventually(
      async () => {
        const d = await delivery(s, 'turtle');
        return d.pending_wakes === 0 && d.last_ack_at ? d : undefined;
      },
      20_000,
      'the ACK after the turn to clear the wake',
    );
    assert.is(cleared.gave_up, 0);
    assert.is(runsOf(runs).length, 1, 'the copies ran nothing');
    const replies = (await s.get('/v1/rooms/pond/messages', ADMIN)).body.messages.filter((m: Json) => m.from.id === 'turtle');
    assert.is(replies.length, 1);
  } finally {
    await p.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
slow('an open wait_for_messages on /v1/mcp shows as mcp_wait, and the message it takes is its ACK', async ({ s }) => {
  assert.is((await s.post('/v1/agents/register', { requested_agent_id: 'heron' }, ADMIN)).status, 200);
  assert.is((await s.post('/v1/rooms', { id: 'marsh', name: 'Marsh', members: ['heron'] }, ADMIN)).status, 200);
  const mcp = await connectMcpHttp(s.url, ADMIN, { 'x-svc-agent': 'heron' });
  try {
    const before = await delivery(s, 'heron');
    assert.is(before.last_ack_at, null);
    const waiting = mcp.call('wait_for_messages', { timeout_s: 20 });
    const open = await eventually(
      async () => {
        const d = await delivery(s, 'heron');
        return d.attached ? d : undefined;
      },
      5000,
      'the wait to show',
    );
    assert.equal(
      open.attachments.map((a: Json) => a.by),
      ['mcp_wait'],
    );
    const sent = await s.post(
      '/v1/messages',
      {
        target: { kind: 'room', room_id: 'marsh' },
        from: { type: 'human', id: 'op' },
        parts: [{ kind: 'text', text: '@heron fish' }],
        mentions: ['heron'],
      },
      ADMIN,
    );
    assert.is(sent.status, 200, sent.text);
    assert.match((await waiting).text, /@heron fish/);
    await eventually(async () => (await delivery(s, 'heron')).last_ack_at, 5000, 'the hand-over to be noted');
    // A history read as the agent is its last read.
    assert.is((await s.get('/v1/rooms/marsh/messages?as=heron', ADMIN)).status, 200);
    await eventually(async () => (await delivery(s, 'heron')).last_read_at, 5000, 'the read to be noted');
  } finally {
    await mcp.close();
  }
});
slow.run();

const pg = suite<{ pgs: PgSchema; a: AppServer; b: AppServer }>('delivery on Postgres, two instances');
pg.before(async (ctx) => {
  ctx.pgs = await freshSchema();
  ctx.a = await startPgApp(ctx.pgs, { server: { delivery: DELIVERY } });
  ctx.b = await startPgApp(ctx.pgs, { server: { delivery: DELIVERY } });
});
pg.after(async ({ a, b, pgs }) => {
  await a?.dispose();
  await b?.dispose();
  await pgs?.drop();
});
pg('the instance without the attachment answers what the one holding it recorded', async ({ a, b }) => {
  await stopsAcknowledging(a, b, false);
});
pg.run();
