// The bot-loop detector: agents that answer each other forever are the most common failure of
// agent networks. Pure state machine (time is passed in), one run per conversation.
//
// A run is the sequence of agent messages in one conversation since the last human message or
// the last pause longer than `pause_ms`. A *turn* starts whenever the sender differs from the
// previous message's sender, so one agent posting a feed stays at one turn however many messages
// it sends, while two (or more) agents answering each other add a turn per message. The message
// that would make the run's turns exceed `max_consecutive` is refused, and so is every further
// agent message of that run, until a human writes or `pause_ms` passes without an accepted message.
// Refused sends do not extend the run, so retrying agents cannot keep it alive.

export interface LoopSettings {
  enabled: boolean;
  /** Turns (sender changes) a run may reach; the next one is refused. */
  max_consecutive: number;
  /** A gap between accepted messages longer than this (ms) ends the run. */
  pause_ms: number;
}

export interface Speaker {
  /** `agent` speakers are counted; any other type (a human) ends the run. */
  type: string;
  /** Scoped id (`<network_id>:<id>`), so the same id on two networks is two speakers. */
  id: string;
}

export type LoopDecision =
  | { allow: true }
  | {
      allow: false;
      /** Turns in the run when it was refused. */
      turns: number;
      /** The speakers of the run, in order of first appearance (at most a few). */
      speakers: string[];
      /** Milliseconds until the run ends by itself (the pause passes). */
      retryAfterMs: number;
      /** True for the refusal that trips the guard (tell operators once per run). */
      tripped: boolean;
    };

interface Run {
  last: string;
  lastAt: number;
  turns: number;
  speakers: string[];
  tripped: boolean;
  pauseMs: number;
}

/** How many speakers a run remembers for the operator event. */
const MAX_SPEAKERS = 8;
/** Records between sweeps of ended runs (keeps memory bounded by active conversations). */
const SWEEP_EVERY = 1024;

const ALLOW: LoopDecision = { allow: true };

/** Tracks agent-only runs per conversation and decides whether an agent may send. */
export class LoopGuard {
  private readonly runs = new Map<string, Run>();
  private recorded = 0;

  /** Decides a send before it is stored. Marks the run tripped on the first refusal. */
  check(conv: string, who: Speaker, now: number, s: LoopSettings): LoopDecision {
    if (!s.enabled || who.type !== 'agent') return ALLOW;
    const run = this.live(conv, now, s);
    if (!run) return ALLOW;
    const turns = run.last === who.id ? run.turns : run.turns + 1;
    if (!run.tripped && turns <= s.max_consecutive) return ALLOW;
    const tripped = !run.tripped;
    run.tripped = true;
    return {
      allow: false,
      turns: run.turns,
      speakers: [...run.speakers],
      retryAfterMs: Math.max(1, run.lastAt + s.pause_ms + 1 - now),
      tripped,
    };
  }

  /** Records an accepted message. */
  record(conv: string, who: Speaker, now: number, s: LoopSettings): void {
    if (++this.recorded % SWEEP_EVERY === 0) this.sweep(now);
    if (who.type !== 'agent') {
      this.runs.delete(conv);
      return;
    }
    if (!s.enabled) return;
    const run = this.live(conv, now, s);
    if (!run) {
      this.runs.set(conv, { last: who.id, lastAt: now, turns: 1, speakers: [who.id], tripped: false, pauseMs: s.pause_ms });
      return;
    }
    if (run.last !== who.id) {
      run.turns += 1;
      run.last = who.id;
      if (!run.speakers.includes(who.id) && run.speakers.length < MAX_SPEAKERS) run.speakers.push(who.id);
    }
    run.lastAt = now;
    run.pauseMs = s.pause_ms;
  }

  /** The run of `conv` if it has not ended by a pause; drops an ended one. */
  private live(conv: string, now: number, s: LoopSettings): Run | undefined {
    const run = this.runs.get(conv);
    if (!run) return undefined;
    if (now - run.lastAt > s.pause_ms) {
      this.runs.delete(conv);
      return undefined;
    }
    return run;
  }

  /** Drops runs whose pause has passed. */
  sweep(now: number): void {
    for (const [conv, run] of this.runs) if (now - run.lastAt > run.pauseMs) this.runs.delete(conv);
  }

  /** Conversations with a live run (for tests and metrics). */
  get size(): number {
    return this.runs.size;
  }
}

/** The settings for a conversation: the network's, overridden field by field by its room's. */
export function loopSettingsFor(network: LoopSettings, room?: Partial<LoopSettings>): LoopSettings {
  return room ? { ...network, ...Object.fromEntries(Object.entries(room).filter(([, v]) => v !== undefined)) } : network;
}
