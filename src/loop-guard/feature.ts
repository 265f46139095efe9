// The loop guard as a feature (server.loop_guard, rooms[].loop_guard): a send check that refuses
// agent runs with no human in between. The decision itself is pure: detector.ts beside it.

import { Counter } from 'prom-client';
import type { FeatureFactory, LiveEvent } from '../feature.js';
import type { Config, LoopGuardConfig } from '../config/types.js';
import { AppError } from '../errors.js';
import { commit, newEvent } from '../network/context.js';
import { LoopGuard, loopSettingsFor, type LoopSettings } from './detector.js';
import type { Message } from '../protocol/types.js';

/** Per-room overrides by room id, rebuilt when the config object changes (reload). */
function roomOverrides(): (config: Config, roomId: string | undefined) => Partial<LoopGuardConfig> | undefined {
  let seen: Config | undefined;
  let byRoom = new Map<string, Partial<LoopGuardConfig>>();
  return (config, roomId) => {
    if (config !== seen) {
      seen = config;
      byRoom = new Map(config.rooms.flatMap((r) => (r.loop_guard ? [[r.id, r.loop_guard] as const] : [])));
    }
    return roomId === undefined ? undefined : byRoom.get(roomId);
  };
}

const speakerOf = (m: Message) => ({ type: m.from.type, id: `${m.from.network_id}:${m.from.id}` });

/** An operator notice about one conversation: for whoever may see that conversation, never anonymous. */
const loopGuardEvent: LiveEvent = { type: 'conversation.loop_guard', target: (e) => e.agent?.target, public: false, attachments: true };

/** Checks each send against the run of agent messages in its conversation, and records it once stored. */
export const loopGuardFeature: FeatureFactory = (app) => {
  const ctx = app.ctx;
  const guard = new LoopGuard();
  const overrides = roomOverrides();
  const settingsOf = (m: Message): LoopSettings =>
    loopSettingsFor(ctx.config.server.loop_guard, overrides(ctx.config, m.target.kind === 'dm' ? undefined : m.target.room_id));

  const loopRefusals = new Counter({
    name: 'svc_loop_guard_refusals_total',
    help: 'Agent sends refused by the loop guard',
    registers: [app.metrics.registry],
  });

  const check = (conv: string, m: Message): void => {
    // A relayed message counts toward the run (recordLoop) but is never refused here: its own
    // network guards its agents, and a refusal would only stall the pairing's outbox.
    if (m.origin) return;
    const s = settingsOf(m);
    const d = guard.check(conv, speakerOf(m), Date.now(), s);
    if (d.allow) return;
    loopRefusals.inc();
    const seconds = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
    const who = d.speakers.map((x) => x.replace(`${ctx.config.network.id}:`, '')).join(', ');
    const text =
      `agents ${who} exchanged ${d.turns} consecutive messages in ${conv} with no human message ` +
      `(limit ${s.max_consecutive}); agent sends here are refused until a human writes or ${Math.ceil(s.pause_ms / 1000)} s pass without messages`;
    if (d.tripped) {
      ctx.log('warn', 'loop guard tripped', { conversation: conv, agents: who, turns: d.turns });
      const event = newEvent(ctx, 'conversation.loop_guard', {
        agent: {
          agent_id: m.from.id,
          network_id: m.from.network_id,
          fqid: m.from.fqid,
          target: m.target,
          reason: 'loop_guard',
          error: text,
        },
        ...(m.target.kind === 'dm' ? {} : { room_id: m.target.room_id }),
      });
      // The refusal does not wait for the operator event; a store that cannot write it logs why.
      commit(ctx, [{ op: 'event.append', event }]).catch((err: unknown) =>
        ctx.log('warn', 'loop guard event not stored', { error: (err as Error).message }),
      );
    }
    throw new AppError('loop_detected', text, { 'retry-after': String(seconds) });
  };
  const stored = (conv: string, m: Message): void => guard.record(conv, speakerOf(m), Date.now(), settingsOf(m));
  return { send: { check, stored }, events: [loopGuardEvent] };
};
