// Frames of the attachment protocol (service.attach.v1): client frames parsed and validated against
// schemas/attach-frames.schema.json, server frames encoded. Pure: no sockets here.

import { ATTACH_PROTOCOL } from '../../protocol/types.js';
import { check } from '../../schemas.js';
import { ALL_CAPABILITIES, type Capabilities } from '../visibility.js';

/** Codes carried by server ERROR frames (README, Attachment errors). */
export type AttachErrorCode =
  | 'bad_frame'
  | 'unexpected_frame'
  | 'network_mismatch'
  | 'forbidden'
  | 'conflict'
  | 'session_in_use'
  | 'bad_cursor'
  | 'agent_removed'
  | 'read_timeout'
  | 'internal_error';

export class FrameError extends Error {
  constructor(
    readonly code: AttachErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

type Cursor = string | number;

export type ClientFrame =
  | { op: 'IDENTIFY'; network_id: string; agent: { id: string; name?: string }; capabilities?: Partial<Capabilities>; cursor?: Cursor }
  | { op: 'ACK'; cursor: Cursor }
  | { op: 'PING' }
  | { op: 'PONG' }
  | { op: 'ERROR'; error?: string };

const CLIENT_OPS = new Set(['IDENTIFY', 'ACK', 'PING', 'PONG', 'ERROR']);
const CURSOR_PATTERN_PROBLEM = /must match \^\(0\|.*$/;

/** One decoder for every frame: decode() without `stream` keeps no state between calls, and a fatal decoder per frame was a native converter per ACK. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Parses one client frame; throws FrameError naming the problem and its field path. */
export function parseClientFrame(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): ClientFrame {
  if (isBinary) throw new FrameError('bad_frame', 'frames must be text frames holding one JSON object');
  const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  let value: unknown;
  try {
    value = JSON.parse(UTF8.decode(buf));
  } catch {
    throw new FrameError('bad_frame', 'frame: is not valid UTF-8 JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new FrameError('bad_frame', 'frame: must be one JSON object with an op');
  const op = (value as { op?: unknown }).op;
  // The frames of the hot path skip the schema when they are plainly valid.
  if (op === 'PING' || op === 'PONG') return value as ClientFrame;
  if (op === 'ACK' && isCursor((value as { cursor?: unknown }).cursor)) return value as ClientFrame;
  const problem = check('attach-frames', value, typeof op === 'string' && CLIENT_OPS.has(op) ? op : 'frame');
  if (problem)
    throw new FrameError(
      'bad_frame',
      problem.replace(CURSOR_PATTERN_PROBLEM, 'must be a cursor: a stored event sequence number (decimal)'),
    );
  return value as ClientFrame;
}

const CURSOR = /^(0|[1-9][0-9]{0,15})$/;

function isCursor(c: unknown): boolean {
  return (typeof c === 'number' && Number.isSafeInteger(c) && c >= 0) || (typeof c === 'string' && CURSOR.test(c));
}

/** A cursor as a number; undefined when absent or empty. */
export function cursorOf(c: Cursor | undefined): number | undefined {
  if (c === undefined || c === '') return undefined;
  return typeof c === 'number' ? c : Number(c);
}

/** The 16 possible capability sets, shared by every attachment that asks for the same one. */
const CAPABILITY_SETS: readonly Capabilities[] = Array.from({ length: 16 }, (_, k) =>
  Object.freeze({ rooms: (k & 1) !== 0, threads: (k & 2) !== 0, dms: (k & 4) !== 0, artifacts: (k & 8) !== 0 }),
);

/** IDENTIFY.capabilities: omitted means everything; given, each kind is delivered only when true. */
export function capabilitiesOf(c: Partial<Capabilities> | undefined): Capabilities {
  if (!c) return ALL_CAPABILITIES;
  const k = (c.rooms === true ? 1 : 0) | (c.threads === true ? 2 : 0) | (c.dms === true ? 4 : 0) | (c.artifacts === true ? 8 : 0);
  return CAPABILITY_SETS[k]!;
}

export const helloFrame = (heartbeatMs: number): string =>
  JSON.stringify({ op: 'HELLO', version: ATTACH_PROTOCOL, heartbeat_interval_ms: heartbeatMs });

export interface ReadyFields {
  network_id: string;
  agent_id: string;
  actor_uid: string;
  actor_uri: string;
  agent_token?: string;
  /** Ours: the cursor delivery starts after (the resumed one, or the live head). */
  cursor: string;
}

export const readyFrame = (f: ReadyFields): string => JSON.stringify({ op: 'READY', ...f });

export const errorFrame = (code: AttachErrorCode, error: string): string => JSON.stringify({ op: 'ERROR', error, code });

export const PING_FRAME = '{"op":"PING"}';
export const PONG_FRAME = '{"op":"PONG"}';
