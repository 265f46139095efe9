// The relay's rooms (the contract, Relay): a room admits exactly two peers; the first peer binds it to
// its token's hash, the second must present the same token, a third is refused. Frames pass between
// the two peers unread. Socket-free: a Peer is anything that can send a frame and be closed.

import { createHash, timingSafeEqual } from 'node:crypto';

export interface Peer {
  send(data: Buffer | string, binary: boolean): void;
  close(code: number, reason: string): void;
}

/** Frames the relay itself sends; peers' own frames never use the `relay.` prefix. */
export const PEER_FRAME = (connected: boolean): string => JSON.stringify({ op: 'relay.peer', connected });

interface Room {
  tokenHash: Buffer;
  /** Peers admitted (their upgrade may still be completing: `peer` is set once attached). */
  slots: Slot[];
  lastActivity: number;
}

export interface Slot {
  room: string;
  peer?: Peer;
}

export type Admission = { ok: true; slot: Slot } | { ok: false; status: 401 | 403 | 409 | 503; reason: string };

const hash = (token: string): Buffer => createHash('sha256').update(token).digest();

export interface HubOptions {
  maxRooms: number;
  now?: () => number;
}

export class Hub {
  private readonly rooms = new Map<string, Room>();
  private readonly now: () => number;

  constructor(private readonly opts: HubOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Whether `room` exists (is bound to a token). */
  has(room: string): boolean {
    return this.rooms.has(room);
  }

  /** Reserves a place in `room` for a peer presenting `token`, or says why not. */
  admit(room: string, token: string | undefined): Admission {
    if (!token) return { ok: false, status: 401, reason: 'send Authorization: Bearer <relay token>' };
    const h = hash(token);
    let r = this.rooms.get(room);
    if (!r) {
      if (this.rooms.size >= this.opts.maxRooms) return { ok: false, status: 503, reason: 'the relay is full (too many rooms)' };
      r = { tokenHash: h, slots: [], lastActivity: this.now() };
      this.rooms.set(room, r);
    } else if (!timingSafeEqual(r.tokenHash, h)) {
      return { ok: false, status: 403, reason: 'this room is bound to another token' };
    }
    if (r.slots.length >= 2) return { ok: false, status: 409, reason: 'this room already has two peers' };
    const slot: Slot = { room };
    r.slots.push(slot);
    r.lastActivity = this.now();
    return { ok: true, slot };
  }

  /** The admitted peer's socket is open: tell both sides whether the other is there. */
  attach(slot: Slot, peer: Peer): void {
    const r = this.rooms.get(slot.room);
    if (!r?.slots.includes(slot)) {
      peer.close(1011, 'room closed');
      return;
    }
    slot.peer = peer;
    const other = this.otherOf(r, slot);
    peer.send(PEER_FRAME(other?.peer !== undefined), false);
    other?.peer?.send(PEER_FRAME(true), false);
  }

  /** Passes a frame to the other peer of the room, if there is one. */
  forward(slot: Slot, data: Buffer | string, binary: boolean): boolean {
    const r = this.rooms.get(slot.room);
    if (!r) return false;
    const other = this.otherOf(r, slot);
    // Only traffic that reaches a peer keeps a room: a lone peer sending into the void would
    // otherwise hold its slot (and fill the relay) forever.
    if (!other?.peer) return false;
    r.lastActivity = this.now();
    other.peer.send(data, binary);
    return true;
  }

  /** A peer left (or its upgrade failed): free its place; an empty room is forgotten with its binding. */
  leave(slot: Slot): void {
    const r = this.rooms.get(slot.room);
    if (!r) return;
    const i = r.slots.indexOf(slot);
    if (i < 0) return;
    r.slots.splice(i, 1);
    if (r.slots.length === 0) {
      this.rooms.delete(slot.room);
      return;
    }
    r.slots[0]!.peer?.send(PEER_FRAME(false), false);
  }

  /** Closes the peers of rooms with no traffic for `idleMs`; returns how many rooms were closed. */
  sweepIdle(idleMs: number): number {
    const t = this.now();
    let n = 0;
    for (const [name, r] of this.rooms) {
      if (t - r.lastActivity < idleMs) continue;
      this.rooms.delete(name);
      for (const s of r.slots) s.peer?.close(4000, 'idle room closed');
      n++;
    }
    return n;
  }

  stats(): { rooms: number; peers: number } {
    let peers = 0;
    for (const r of this.rooms.values()) peers += r.slots.length;
    return { rooms: this.rooms.size, peers };
  }

  private otherOf(r: Room, slot: Slot): Slot | undefined {
    return r.slots.find((s) => s !== slot);
  }
}
