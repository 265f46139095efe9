// The soak run's options (flags or SOAK_* environment variables) and small shared helpers.

import { TOKENS } from '../../test/helpers/server.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : Number(process.env[`SOAK_${name.toUpperCase()}`] ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${name}: must be a number`);
  return v;
}

export const MINUTES = arg('minutes', 10);
export const AGENTS = arg('agents', 200);
export const RATE = arg('rate', 60); // messages per second, all senders together
export const READ_RATE = arg('reads', 30); // history reads per second
export const OBSERVERS = arg('observers', 4);
export const ROOMS = 20;
// The SSE replay buffer (server.event_buffer, 10000 events) fills in about two minutes at this
// rate; the JS heap is flat from then on.
export const WARMUP_MIN = MINUTES >= 6 ? 3 : Math.max(1, Math.floor(MINUTES / 2));
export const ADMIN = TOKENS.admin.value;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const rand = (n: number) => Math.floor(Math.random() * n);
export const agentId = (i: number) => `ag${i}`;
export const roomsOf = (i: number) => [i % ROOMS, (i + 7) % ROOMS];
