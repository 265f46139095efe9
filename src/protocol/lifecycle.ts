// Wire shapes of messages that change and go (#40): edits and their versions, and retention.
// Re-exported by ./types.js.

import type { Part } from './part.js';

/** An earlier version of an edited message (GET /v1/messages/{id}/versions). */
export interface MessageVersion {
  /** 1 is the message as sent. */
  version: number;
  parts: Part[];
  mentions: string[];
  /** When this version was written: the message's created_at for version 1, else that edit's time. */
  created_at: string;
}

/** The answer to GET /v1/messages/{id}/versions: every earlier version, oldest first. */
export interface MessageVersions {
  message_id: string;
  /** The current version (the message itself). */
  version: number;
  items: MessageVersion[];
}

/** PATCH /v1/messages/{id}: the new content. */
export interface EditRequest {
  parts: Part[];
  /** Mention candidates beyond the text, as on a send. */
  mentions?: string[];
}

/**
 * How long messages are kept (#40 part 4): those older than `max_age` (`30d`, `12h`, `15m`, `45s`)
 * and those past the newest `max_messages` of a conversation are purged. A field left out is no
 * limit (a room's policy falls back to `server.retention` field by field).
 */
export interface RetentionPolicy {
  max_age?: string;
  max_messages?: number;
}
