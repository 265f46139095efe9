// The a2a-outbound feature (#42 part 3): remote A2A agents (`a2a_agents` in svc.yaml, or declared by
// `svc apply`) as members of rooms. Each is claimed as an agent record of kind a2a and added to its
// rooms; a mention of it or a DM to it, seen on the event feed as every wake is, becomes an A2A
// SendMessage (dispatch.ts) and its answer its message. Its card is fetched on a schedule; after
// `down_after` failures in a row it is down: a warning (GET /v1/network, svc doctor), presence
// (agent.disconnected, which the console's agent list shows), `svc_a2a_agent_up`, and a notice to
// each sender instead of a call. Several instances: each checks the card; one handles each wake.

import { randomUUID } from 'node:crypto';
import type { A2aAgentConfig } from '../../config/a2a-agents.js';
import { cardUrlOf } from '../../config/a2a-agents.js';
import type { App, Feature, FeatureFactory } from '../../feature.js';
import { baseUrlOf } from '../../discovery/base-url.js';
import { agentNames, presenceEvent, wakeOf } from '../../live/agent-events.js';
import { commit } from '../../network/context.js';
import type { Warning } from '../../protocol/types.js';
import type { StoredEvent } from '../../store/types.js';
import { dispatch, type DispatchDeps } from './dispatch.js';
import { downWarning, Health, reasonOf } from './health.js';
import { ensureMember } from './members.js';
import { a2aMetrics } from './metrics.js';
import { A2aRegistry } from './registry.js';
import type { RemoteAgent } from './remote.js';

/** How often the agents applied through another instance are read again (ms; tests shorten it). */
const APPLIED_POLL_MS = Number(process.env.SVC_A2A_APPLIED_POLL_MS) || 5_000;
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
  const registry = new A2aRegistry(
    () => ctx.store,
    () => ctx.config.a2a_agents,
    () => track(reconcile().catch(warn('A2A agents could not be reconciled'))),
  );
  const loaded = registry.refresh().catch(warn('could not read the applied A2A agents'));
  track(reconcile().catch(warn('A2A agents could not be reconciled')));

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

  /** One instance handles each wake: the first to store the claim. */
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
      event: (e) => {
        if (closed || entries.size === 0) return;
        const net = ctx.config.network.id;
        for (const entry of entries.values()) {
          const w = wakeOf(e.event, agentNames(net, entry.conf.id));
          const m = e.event.message;
          if (!w || !m) continue;
          // Two remote agents would answer each other without end: they are not woken by each other.
          if (m.from.type === 'agent' && m.from.network_id === net && entries.has(m.from.id)) continue;
          const conf = entry.conf;
          track(
            claimed(conf.id, e)
              .then((mine) => (mine ? dispatch(deps, conf, m) : undefined))
              .catch(warn('A2A wake could not be claimed')),
          );
        }
      },
    },
    started: () => {
      started = true;
      for (const e of entries.values()) schedule(e);
      poll = setInterval(() => void registry.refresh().catch(warn('could not read the applied A2A agents')), APPLIED_POLL_MS);
      poll.unref();
    },
    reloaded: () => track(reconcile().catch(warn('A2A agents could not be reconciled'))),
    close: async () => {
      closed = true;
      started = false;
      clearInterval(poll);
      for (const e of entries.values()) clearInterval(e.timer);
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
