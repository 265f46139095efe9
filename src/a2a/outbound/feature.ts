// The a2a-outbound feature (#42 part 3): remote A2A agents (`a2a_agents` in svc.yaml, or declared by
// `svc apply`) as members of rooms. Each is claimed as an agent record of kind a2a and added to its
// rooms; a mention of it or a DM to it, read from the stored event feed by a cursor (feed.ts: also
// the wakes stored while no instance ran), becomes an A2A SendMessage (dispatch.ts) and its answer
// its message. Its card is fetched on a schedule; after
// `down_after` failures in a row it is down: a warning (GET /v1/network, svc doctor), presence
// (agent.disconnected, which the console's agent list shows), `svc_a2a_agent_up`, and a notice to
// each sender instead of a call. Several instances: each checks the card; one handles each wake.

import { randomUUID } from 'node:crypto';
import type { A2aAgentConfig } from '../../config/a2a-agents.js';
import { cardUrlOf } from '../../config/a2a-agents.js';
import type { App, Feature, FeatureFactory } from '../../feature.js';
import { baseUrlOf } from '../../discovery/base-url.js';
import { presenceEvent, wakeOf } from '../../live/agent-events.js';
import { commit } from '../../network/context.js';
import type { Warning } from '../../protocol/types.js';
import type { StoredEvent } from '../../store/types.js';
import { dispatch, type DispatchDeps } from './dispatch.js';
import { WakeFeed } from './feed.js';
import { downWarning, Health, reasonOf } from './health.js';
import { ensureMember } from './members.js';
import { a2aMetrics } from './metrics.js';
import { A2aRegistry } from './registry.js';
import type { RemoteAgent } from './remote.js';

/** How long the claim on one wake is kept (other instances skip it meanwhile). */
const CLAIM_MS = 86_400_000;
/** How long shutdown waits for calls and replies in flight. */
const CLOSE_GRACE_MS = 2_000;

interface Entry {
  conf: A2aAgentConfig;
  health: Health;
  remote?: Promise<RemoteAgent>;
  timer?: NodeJS.Timeout;
  /** Why it is not fully a member (id taken, missing room), as warnings. */
  problems: Warning[];
  checking: boolean;
}

export const a2aOutboundFeature: FeatureFactory = (app: App): Feature => {
  /** How often the agents applied through another instance are read again (ms; tests shorten it for the app they start). */
  const APPLIED_POLL_MS = Number(process.env.SVC_A2A_APPLIED_POLL_MS) || 5_000;
  const ctx = app.ctx;
  const metrics = a2aMetrics(app.metrics.registry);
  const entries = new Map<string, Entry>();
  const inflight = new Set<Promise<void>>();
  const owner = randomUUID();
  let started = false;
  let closed = false;
  let poll: NodeJS.Timeout | undefined;

  const warn = (msg: string) => (err: unknown) => ctx.log('warn', msg, { error: reasonOf(err) });
  const track = (p: Promise<void>) => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  /** Tells the network the agent's status changed: presence events (the console's dot) and the gauge. */
  const changed = (e: Entry, to: 'up' | 'down' | undefined) => {
    if (!to) return;
    metrics.up.set({ agent: e.conf.id }, to === 'up' ? 1 : 0);
    if (to === 'down') ctx.log('warn', 'A2A agent is down', { agent: e.conf.id, error: e.health.lastError });
    else ctx.log('info', 'A2A agent is up', { agent: e.conf.id });
    presence(e, to === 'up' ? 'agent.connected' : 'agent.disconnected');
  };
  const presence = (e: Entry, type: 'agent.connected' | 'agent.disconnected') => {
    const agent = { id: e.conf.id, ...(e.conf.name ? { name: e.conf.name } : {}) };
    const ev =
      type === 'agent.connected'
        ? presenceEvent(ctx, type, agent, 'attachment_ready')
        : presenceEvent(ctx, type, agent, 'read_error', e.health.lastError);
    if (!closed) track(commit(ctx, [{ op: 'event.append', event: ev }]).then(() => undefined, warn('A2A presence event not stored')));
  };

  const remoteOf = (e: Entry): Promise<RemoteAgent> => {
    e.remote ??= import('./remote.js').then((m) => new m.RemoteAgent(e.conf));
    return e.remote;
  };

  const check = async (e: Entry): Promise<void> => {
    if (e.checking || closed) return;
    e.checking = true;
    try {
      await (await remoteOf(e)).check();
      changed(e, e.health.ok());
    } catch (err) {
      metrics.checkFailures.inc({ agent: e.conf.id });
      changed(e, e.health.fail(`card check: ${reasonOf(err)}`, new Date()));
    } finally {
      e.checking = false;
    }
  };

  const schedule = (e: Entry) => {
    clearInterval(e.timer);
    track(check(e));
    e.timer = setInterval(() => track(check(e)), e.conf.check_interval_ms);
    e.timer.unref();
  };

  const reconcile = async (): Promise<void> => {
    const wanted = new Map(registry.all().map((a) => [a.id, a]));
    for (const [id, e] of entries) {
      const next = wanted.get(id);
      if (next && JSON.stringify(next) === JSON.stringify(e.conf)) continue;
      clearInterval(e.timer);
      entries.delete(id);
      metrics.up.remove({ agent: id });
      // Shown online until now: no longer checked (dropped, or checked again as its new declaration).
      if (e.health.status === 'up') presence(e, 'agent.disconnected');
    }
    for (const [id, conf] of wanted) {
      if (entries.has(id)) continue;
      const e: Entry = { conf, health: new Health(conf.down_after), problems: [], checking: false };
      entries.set(id, e);
      metrics.up.set({ agent: id }, 0);
      e.problems = await ensureMember(ctx, conf).catch((err) => {
        warn('A2A agent could not be made a member')(err);
        return [];
      });
      if (started) schedule(e);
    }
  };
  /** The last reconcile started: the feed is read once it (and the applied agents' read) is done. */
  let reconciled: Promise<void> = Promise.resolve();
  const reconcileSoon = () => {
    const p = reconcile().catch(warn('A2A agents could not be reconciled'));
    reconciled = p;
    track(p);
  };
  const registry = new A2aRegistry(
    () => ctx.store,
    () => ctx.config.a2a_agents,
    () => reconcileSoon(),
  );
  const loaded = registry.refresh().catch(warn('could not read the applied A2A agents'));
  reconcileSoon();

  const deps: DispatchDeps = {
    ctx,
    filesBase: () => {
      const a = app.address();
      return a ? baseUrlOf({}, false, a) : undefined;
    },
    remote: (a) => remoteOf(entries.get(a.id) ?? { conf: a, health: new Health(a.down_after), problems: [], checking: false }),
    health: (id) => entries.get(id)?.health ?? new Health(1),
    called: (id, error) => {
      const e = entries.get(id);
      if (!e) return;
      changed(e, error === undefined ? e.health.ok() : e.health.fail(`call: ${reasonOf(error)}`, new Date()));
    },
    counted: (id, outcome) => metrics.messages.inc({ agent: id, outcome }),
  };

  /**
   * The wakes of one stored event: each claimed (awaited, so the feed's cursor passes only claimed
   * wakes), then sent (tracked). A wake older than its agent's `catch_up_max_age_ms` is skipped:
   * a gateway back after a long stop does not flood the agent with stale questions.
   */
  const take = async (e: StoredEvent): Promise<boolean> => {
    // Without agents (a server without a2a_agents) the cursor stays: a gateway that has them reads it.
    if (closed || entries.size === 0) return false;
    const m = e.event.message;
    if (!m) return true;
    const net = ctx.config.network.id;
    // Two remote agents would answer each other without end: they are not woken by each other.
    if (m.from.type === 'agent' && m.from.network_id === net && entries.has(m.from.id)) return true;
    for (const entry of [...entries.values()]) {
      if (!wakeOf(e.event, net, entry.conf.id)) continue;
      const conf = entry.conf;
      const age = Date.now() - Date.parse(e.event.created_at);
      if (age > conf.catch_up_max_age_ms) {
        ctx.log('warn', 'A2A wake skipped: older than catch_up_max_age_ms', { agent: conf.id, message: m.id, seq: e.seq, age_ms: age });
        continue;
      }
      try {
        if (await claimed(conf.id, e)) track(dispatch(deps, conf, m));
      } catch (err) {
        warn('A2A wake could not be claimed')(err);
      }
    }
    return true;
  };
  const feed = new WakeFeed({ store: () => ctx.store, network: () => ctx.config.network.id, take, log: (l, msg, f) => ctx.log(l, msg, f) });
  // The cursor of a first start is the end of the log as the feature is built, before the server
  // listens: what is sent from then on is read, even before the catch-up begins. A server without
  // agents keeps no cursor (applied agents begin it as they are applied, or at their first read).
  const begin = () => track(feed.begin().catch(warn('the A2A feed cursor could not be read')));
  if (ctx.config.a2a_agents.length > 0) begin();
  /** Set once started and the declared agents are known: the feed is read from then on. */
  let reading = false;

  /** One instance handles each wake: the first to store the claim (kept a day: a restart does not send it again). */
  const claimed = async (id: string, e: StoredEvent): Promise<boolean> => {
    const row = await ctx.store.kv.putIfAbsent({
      kind: 'a2a_wake',
      id: `${id}\n${e.event.id}`,
      value: owner,
      expires_at: Date.now() + CLAIM_MS,
    });
    return row.value === owner;
  };

  return {
    apply: {
      check: (req) => registry.check(req),
      apply: async (req) => {
        await loaded;
        const changes = await registry.apply(req);
        await reconcile();
        if (entries.size > 0) begin();
        // The apply's rooms were set exactly as declared before this part ran: join them again.
        for (const d of req.a2a_agents ?? []) {
          const e = entries.get(d.id);
          if (e) e.problems = await ensureMember(ctx, e.conf);
        }
        return changes;
      },
    },
    // The id is the remote agent's: a stranger registering it would receive its mentions and DMs.
    reservedAgents: () => [...entries.keys()].map((id) => ({ id, namedAs: 'a remote A2A agent (a2a_agents)' })),
    warnings: () =>
      [...entries.values()].flatMap((e) => [
        ...e.problems,
        ...(e.health.status === 'down' ? [downWarning(e.conf.id, cardUrlOf(e.conf), e.health, e.conf.check_interval_ms)] : []),
      ]),
    observe: {
      // A wake-up only: the wakes are read from the store (feed.ts), also those no event announced.
      event: (e) => {
        if (reading && entries.size > 0 && e.event.message) feed.kick();
      },
    },
    started: () => {
      started = true;
      for (const e of entries.values()) schedule(e);
      // Catch up once the agents (svc.yaml's and the applied ones) are members again.
      void loaded
        .then(() => reconciled)
        .then(() => {
          if (closed) return;
          reading = true;
          if (entries.size > 0) feed.kick();
        });
      poll = setInterval(() => {
        void registry.refresh().catch(warn('could not read the applied A2A agents'));
        // Events that reached no observer here (the feed's own catch-up covers reconnects).
        if (reading && entries.size > 0) feed.kick();
      }, APPLIED_POLL_MS);
      poll.unref();
    },
    reloaded: () => reconcileSoon(),
    close: async () => {
      closed = true;
      started = false;
      clearInterval(poll);
      for (const e of entries.values()) clearInterval(e.timer);
      await feed.stop();
      // A call in flight may wait up to its timeout: shutdown waits for it only briefly.
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => {
        timer = setTimeout(r, CLOSE_GRACE_MS);
      });
      await Promise.race([Promise.allSettled([...inflight]), grace]);
      clearTimeout(timer);
    },
  };
};
