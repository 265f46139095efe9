// Where this agent has read up to in each conversation, kept in a small JSON file so unread counts
// survive restarts of `svc mcp`. Written whole and renamed into place: a crash leaves the old file.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The newest message read in one conversation. */
export interface Marker {
  id: string;
  at: string;
}

interface FileShape {
  version: 1;
  /** When this agent's markers began: messages older than this count as read. */
  since: string;
  read: Record<string, Marker>;
}

/** Read markers as the tools use them: a JSON file (stdio) or the agent's read state in the store (HTTP). */
export interface Markers {
  /** When this agent's markers began: messages older than this count as read. */
  readonly since: string;
  get(key: string): Marker | undefined;
  /** Moves a conversation's marker forward to `m` (never back). */
  advance(key: string, m: Marker): void | Promise<void>;
}

export class ReadMarkers implements Markers {
  #data: FileShape;

  private constructor(
    readonly file: string,
    data: FileShape,
  ) {
    this.#data = data;
  }

  /** Opens the file, or starts empty (since now) when it does not exist or cannot be read. */
  static open(file: string, now = new Date()): ReadMarkers {
    let data: FileShape | undefined;
    try {
      const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<FileShape>;
      if (raw && raw.version === 1 && typeof raw.since === 'string' && raw.read && typeof raw.read === 'object') data = raw as FileShape;
    } catch {
      // absent or unreadable: a fresh start; unread counts begin now
    }
    const markers = new ReadMarkers(file, data ?? { version: 1, since: now.toISOString(), read: {} });
    if (!data) markers.#save();
    return markers;
  }

  get since(): string {
    return this.#data.since;
  }

  get(key: string): Marker | undefined {
    return this.#data.read[key];
  }

  /** Moves a conversation's marker forward to `m` (never back). */
  advance(key: string, m: Marker): void {
    const cur = this.#data.read[key];
    if (cur && (cur.at > m.at || cur.id === m.id)) return;
    this.#data.read[key] = m;
    this.#save();
  }

  #save(): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#data), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

/**
 * How many of `messages` (oldest first, the newest page of a conversation) are unread: newer than
 * the marker (or than `since` when the conversation has none) and not written by this agent.
 * `more` is true when every message of a full page is unread, so the real count may be higher.
 */
export function unreadIn(
  messages: readonly { id: string; created_at: string; own: boolean }[],
  marker: Marker | undefined,
  since: string,
  full: boolean,
): { count: number; more: boolean } {
  let start = 0;
  if (marker) {
    const i = messages.findIndex((m) => m.id === marker.id);
    start = i >= 0 ? i + 1 : firstAfter(messages, marker.at);
  } else {
    start = firstAfter(messages, since);
  }
  const count = messages.slice(start).filter((m) => !m.own).length;
  return { count, more: full && start === 0 && count > 0 };
}

function firstAfter(messages: readonly { created_at: string }[], at: string): number {
  const i = messages.findIndex((m) => m.created_at > at);
  return i < 0 ? messages.length : i;
}
