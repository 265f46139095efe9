// Claude Code channels through `svc mcp`: a real MCP client (the SDK's Client over stdio) against a
// real server. A client that declares `experimental['claude/channel']` gets each mention or DM as a
// `notifications/claude/channel` event, one per conversation and burst; one that does not gets none.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startMcp, type McpSession } from '../helpers/mcp.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { pgStore } from '../helpers/pg-server.js';
import { TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const ALPHA = TOKENS.alphaOnly.value;
const BETA = { id: 'beta-bot', value: 'tok-betabot-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };
const CHANNEL = { experimental: { 'claude/channel': {} } };
const METHOD = 'notifications/claude/channel';

interface Event {
  content: string;
  meta: Record<string, string>;
}

interface Watched {
  m: McpSession;
  /** The channel events received so far. */
  events: Event[];
  /** Every notification method received that the client has no handler for. */
  others: string[];
  /** Resolves once `n` channel events arrived; rejects after `ms`. */
  eventsAt(n: number, ms?: number): Promise<Event[]>;
}

interface Ctx {
  s: AppServer;
  dir: string;
  n: number;
  stateDir(): string;
  /** svc mcp as beta, declaring `capabilities` in initialize, its notifications recorded. */
  beta(stateDir: string, capabilities?: Json): Promise<Watched>;
  say(target: Json, text: string): Promise<string>;
}

const CONFIG: Json = {
  auth: {
    agent_registration: 'open',
    tokens: [
      ...Object.values(TOKENS).map((x) => ({ ...x, scopes: [...x.scopes], ...('agents' in x ? { agents: [...x.agents] } : {}) })),
      BETA,
    ],
  },
  rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta'] }],
};

const GENERAL = { kind: 'room', room_id: 'general' };

// The push happens in svc mcp, but what it pushes comes through the store: both backends.
for (const backend of ['sqlite', 'postgres'] as const) {
  const t = suite<Ctx>(`svc mcp pushes mentions and DMs as Claude Code channel events (${backend})`);
  let pgs: PgSchema | undefined;

  t.before(async (ctx) => {
    pgs = backend === 'postgres' ? await freshSchema() : undefined;
    ctx.s = await startApp({
      ...(pgs ? { env: { SVC_TEST_STORE_URL: pgs.url } } : {}),
      config: { ...CONFIG, ...(pgs ? { store: pgStore(pgs) } : {}) },
    });
    ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-channel-'));
    ctx.n = 0;
    ctx.stateDir = () => path.join(ctx.dir, `state-${++ctx.n}`);
    ctx.beta = async (stateDir, capabilities = {}) => {
      const m = await startMcp(['--url', ctx.s.url, '--agent', 'beta', '--state-dir', stateDir], { SVC_TOKEN: BETA.value }, capabilities);
      const events: Event[] = [];
      const others: string[] = [];
      const waiters = new Set<() => void>();
      m.client.fallbackNotificationHandler = async (n: Notification) => {
        if (n.method === METHOD) events.push(n.params as unknown as Event);
        else others.push(n.method);
        for (const w of waiters) w();
      };
      await m.waitFor(/attached as beta/);
      return {
        m,
        events,
        others,
        eventsAt: (n, ms = 10_000) =>
          new Promise<Event[]>((resolve, reject) => {
            const check = () => {
              if (events.length < n) return;
              clearTimeout(timer);
              waiters.delete(check);
              resolve(events);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              reject(new Error(`${events.length} channel events after ${ms} ms, expected ${n}:\n${m.stderr()}`));
            }, ms);
            waiters.add(check);
            check();
          }),
      };
    };
    ctx.say = async (target, text) => {
      const r = await ctx.s.req('POST', '/v1/messages', {
        token: ALPHA,
        body: { target, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text }] },
      });
      assert.is(r.status, 200, r.text);
      return r.body.message_id as string;
    };
  });
  t.after(async (ctx) => {
    await ctx.s.dispose();
    await pgs?.drop();
    rmSync(ctx.dir, { recursive: true, force: true });
  });

  // What svc mcp declares does not come through the store: checked once, on sqlite.
  if (backend === 'sqlite')
    t('the server declares the claude/channel capability and its instructions say what a channel event holds', async (ctx) => {
      const w = await ctx.beta(ctx.stateDir(), CHANNEL);
      try {
        assert.equal(w.m.client.getServerCapabilities()?.experimental, { 'claude/channel': {} });
        const instructions = w.m.client.getInstructions() ?? '';
        assert.match(instructions, /<channel source="\.\.\." conversation="room\|thread\|dm" room_id thread_id dm_id from message_id/);
        assert.match(instructions, /Answer with send_message/);
      } finally {
        await w.m.close();
      }
    });

  t(
    'a client that declares claude/channel gets a mention as one channel event with who, where, the text and the ids to reply with',
    async (ctx) => {
      const w = await ctx.beta(ctx.stateDir(), CHANNEL);
      try {
        const id = await ctx.say(GENERAL, '@beta can you look at the build?');
        const [e] = await w.eventsAt(1);
        assert.equal(e!.meta, {
          conversation: 'room',
          room_id: 'general',
          from: 'alpha',
          message_id: id,
          message_ids: id,
          reason: 'mention',
          ts: e!.meta.ts!,
        });
        assert.match(e!.meta.ts!, /^\d{4}-\d\d-\d\dT/);
        const lines = e!.content.split('\n');
        assert.is(lines[0], 'room general · reply with send_message room_id="general"');
        assert.match(lines[1]!, new RegExp(`^- ${id} · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ · alpha · mentions you:$`));
        assert.is(lines[2], '  @beta can you look at the build?');
        await w.m.waitFor(/the client takes claude\/channel events/);

        // A room message that does not mention beta is no event; a DM is.
        await ctx.say(GENERAL, 'just chatting');
        const dm = await ctx.say({ kind: 'dm', participant_ids: ['beta'] }, 'psst, beta');
        const events = await w.eventsAt(2);
        assert.is(events.length, 2);
        const d = events[1]!;
        assert.is(d.meta.conversation, 'dm');
        assert.is(d.meta.reason, 'dm');
        assert.is(d.meta.message_id, dm);
        assert.ok(d.meta.dm_id, 'the DM id to reply with');
        assert.match(
          d.content,
          new RegExp(
            `^DM ${d.meta.dm_id} with alpha · reply with send_message dm_id="${d.meta.dm_id}"\\n- ${dm} · .* · alpha:\\n  psst, beta$`,
          ),
        );

        // The push consumed nothing: wait_for_messages still returns both.
        const r = await w.m.call('wait_for_messages', { timeout_s: 5 });
        assert.equal(
          (r.structuredContent as Json).messages.map((x: Json) => x.id),
          [id, dm],
        );
      } finally {
        await w.m.close();
      }
    },
  );

  t('a burst is one event per conversation, and a restart does not push the same messages again', async (ctx) => {
    const state = ctx.stateDir();
    let w = await ctx.beta(state, CHANNEL);
    await w.m.close();

    // While svc mcp is down: two mentions in the room, room traffic, a DM. The restart replays them at once.
    const a = await ctx.say(GENERAL, '@beta first thing');
    await ctx.say(GENERAL, 'not for beta');
    const b = await ctx.say(GENERAL, '@beta second thing');
    const dm = await ctx.say({ kind: 'dm', participant_ids: ['beta'] }, 'and privately');

    w = await ctx.beta(state, CHANNEL);
    try {
      const events = await w.eventsAt(2);
      await sleep(1500);
      assert.is(events.length, 2, 'one event per conversation');
      const room = events.find((e) => e.meta.conversation === 'room')!;
      const priv = events.find((e) => e.meta.conversation === 'dm')!;
      assert.is(room.meta.message_ids, `${a},${b}`);
      assert.is(room.meta.message_id, b, 'the newest, to reply to');
      assert.match(room.content, /first thing[\s\S]*second thing/);
      assert.not.match(room.content, /not for beta/);
      assert.is(priv.meta.message_ids, dm);
    } finally {
      await w.m.close();
    }

    // Not consumed by the push, so replayed again: but already pushed, so no event this time.
    w = await ctx.beta(state, CHANNEL);
    try {
      await sleep(1500);
      assert.equal(w.events, []);
      const r = await w.m.call('wait_for_messages', { timeout_s: 5 });
      assert.equal(
        (r.structuredContent as Json).messages.map((x: Json) => x.id),
        [a, b, dm],
      );
    } finally {
      await w.m.close();
    }
  });

  t('a client that does not declare claude/channel gets no channel event, and its tools work as before', async (ctx) => {
    const w = await ctx.beta(ctx.stateDir());
    try {
      const id = await ctx.say(GENERAL, '@beta are you there?');
      const dm = await ctx.say({ kind: 'dm', participant_ids: ['beta'] }, 'hello in private');
      // A wait answers once something has arrived: the DM may reach svc mcp after the mention and
      // come with the next call (on Postgres it did), so calls are made until both came, once each.
      const got: string[] = [];
      for (let i = 0; i < 5 && got.length < 2; i++) {
        const r = await w.m.call('wait_for_messages', { timeout_s: 5 });
        assert.not.ok(r.isError, r.text);
        got.push(...(r.structuredContent as Json).messages.map((x: Json) => x.id as string));
      }
      assert.equal(got, [id, dm]);
      const sent = await w.m.call('send_message', { room_id: 'general', text: 'here @alpha' });
      assert.not.ok(sent.isError, sent.text);
      await sleep(1500);
      assert.equal(w.events, []);
      assert.not.ok(w.others.includes(METHOD));
      assert.not.match(w.m.stderr(), /claude\/channel/);
    } finally {
      await w.m.close();
    }
  });

  t.run();
}
