// Console sessions, in memory: a random id in the cookie maps to the bearer token it was opened
// with, so every request re-authenticates that token and the session has exactly its scopes
// (a token removed by a config reload stops working for its sessions too). Lost on restart.

import { randomBytes } from 'node:crypto';

interface Session {
  token: string;
  created: number;
  seen: number;
}

export interface SessionOptions {
  /** Idle time after which a session ends. */
  idleMs?: number;
  /** Age after which a session ends however active it is. */
  maxAgeMs?: number;
  /** Most sessions kept; the least recently used goes first. */
  max?: number;
  now?: () => number;
}

const ID = /^[A-Za-z0-9_-]{43}$/;

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  private readonly idleMs: number;
  private readonly maxAgeMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(opts: SessionOptions = {}) {
    this.idleMs = opts.idleMs ?? 12 * 3600_000;
    this.maxAgeMs = opts.maxAgeMs ?? 7 * 24 * 3600_000;
    this.max = opts.max ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** Opens a session for `token`; returns its id (256 random bits, base64url). */
  open(token: string): string {
    const id = randomBytes(32).toString('base64url');
    const t = this.now();
    this.sessions.set(id, { token, created: t, seen: t });
    while (this.sessions.size > this.max) this.sessions.delete(this.sessions.keys().next().value!);
    return id;
  }

  /** The token of a live session, or undefined; refreshes its idle timer. */
  tokenOf(id: string | undefined): string | undefined {
    if (id === undefined || !ID.test(id)) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const t = this.now();
    if (t - s.seen > this.idleMs || t - s.created > this.maxAgeMs) {
      this.sessions.delete(id);
      return undefined;
    }
    s.seen = t;
    // Re-insert so Map order stays least-recently-used first.
    this.sessions.delete(id);
    this.sessions.set(id, s);
    return s.token;
  }

  close(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }

  clear(): void {
    this.sessions.clear();
  }

  get size(): number {
    return this.sessions.size;
  }
}
