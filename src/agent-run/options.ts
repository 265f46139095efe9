// Flags of `svc agent run`, checked once: what wakes it, where, how long a run may take.

import type { AttachedEvent } from '../client/index.js';

export type WakeKind = 'mentions' | 'dms' | 'all';

export class RunOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunOptionError';
  }
}

/** `mentions,dms` -> the set; `all` covers every message of its rooms, threads and DMs. */
export function parseWake(raw: string): Set<WakeKind> {
  const kinds = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (kinds.length === 0) throw new RunOptionError('--wake: name at least one of mentions, dms, all');
  for (const k of kinds)
    if (k !== 'mentions' && k !== 'dms' && k !== 'all') throw new RunOptionError(`--wake: ${k} is not one of mentions, dms, all`);
  return new Set(kinds as WakeKind[]);
}

/** `90s`, `10m`, `1h`, `500ms`, or a number of seconds -> milliseconds. */
export function parseDuration(raw: string, flag = '--timeout'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!m) throw new RunOptionError(`${flag}: ${raw} is not a duration (e.g. 90s, 10m, 1h)`);
  const n = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  if (n < 1) throw new RunOptionError(`${flag}: must be more than 0`);
  return Math.round(n);
}

/** A duration for log lines: `850ms`, `12.3s`, `4m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

export interface WakeFilter {
  wake: Set<WakeKind>;
  /** Only these rooms (and their threads); empty: every room. */
  rooms: string[];
  agent: { network_id: string; id: string };
}

/** Whether a delivered event starts (or joins) a run. */
export function wakes(e: AttachedEvent, f: WakeFilter): boolean {
  const m = e.event.message;
  if (!m || (e.event.type !== 'message.created' && e.event.type !== 'message.edited')) return false;
  // An edit starts a run only as the wake it is (a mention no earlier version had), never as traffic.
  if (e.event.type === 'message.edited' && e.wake !== 'mention') return false;
  if (m.from.type === 'agent' && m.from.id === f.agent.id && m.from.network_id === f.agent.network_id) return false;
  if (m.target.kind !== 'dm' && f.rooms.length > 0 && !f.rooms.includes(m.target.room_id)) return false;
  if (f.wake.has('all')) return true;
  if (e.wake === 'mention') return f.wake.has('mentions');
  if (e.wake === 'dm') return f.wake.has('dms');
  return false;
}
