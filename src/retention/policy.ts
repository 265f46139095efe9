// Retention policies (#40 part 4), pure: ages as written in svc.yaml, and what a room keeps once its
// own policy is laid over the network's.

import type { RetentionPolicy } from '../protocol/types.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30d`, `12h`, `15m`, `45s` in milliseconds; undefined for anything else (the schema refuses it first). */
export function ageMs(age: string): number | undefined {
  const m = /^([1-9][0-9]{0,8})([smhd])$/.exec(age);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined;
}

/** A policy in force: the age in milliseconds and the count, each absent when there is no such limit. */
export interface Limits {
  max_age_ms?: number;
  max_messages?: number;
}

/** The room's own policy over the network's, field by field; undefined when nothing limits it. */
export function limitsOf(network: RetentionPolicy | undefined, room: RetentionPolicy | undefined): Limits | undefined {
  const age = room?.max_age ?? network?.max_age;
  const count = room?.max_messages ?? network?.max_messages;
  const max_age_ms = age !== undefined ? ageMs(age) : undefined;
  if (max_age_ms === undefined && count === undefined) return undefined;
  return { ...(max_age_ms !== undefined ? { max_age_ms } : {}), ...(count !== undefined ? { max_messages: count } : {}) };
}

/** A policy as one line for operators (`30d, 1000 messages`). */
export function describeRetention(p: RetentionPolicy | undefined): string {
  const parts = [...(p?.max_age ? [p.max_age] : []), ...(p?.max_messages !== undefined ? [`${p.max_messages} messages`] : [])];
  return parts.length > 0 ? parts.join(', ') : 'forever';
}
