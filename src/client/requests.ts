// The shapes of what the typed client sends (queries and request bodies) that the protocol types
// do not already name; svc-client.ts re-exports them, so callers import them from the client.

import type { EditRequest, SendRequest, Visibility, WritePolicy } from '../protocol/types.js';

/** `limit`, `before`, `after` of every list endpoint. */
export interface ListQuery {
  limit?: number;
  before?: string;
  after?: string;
  /** History reads: whom the read counts for (an agent id, or `human:<id>`; docs/api.md). */
  as?: string;
}

export interface ArtifactQuery extends ListQuery {
  room_id?: string;
  thread_id?: string;
  dm_id?: string;
}

/** GET /v1/search: `q` (every word must match, the last as a prefix) and optional filters. */
export interface SearchParams {
  q: string;
  room_id?: string;
  thread_id?: string;
  dm_id?: string;
  from?: string;
  limit?: number;
  before?: string;
}

/** The body of PATCH /v1/messages/{id}: the new content, who edits, and the version it expects. */
export interface EditBody extends EditRequest {
  /** Absent: an agent token's own agent, or for a static token the sender it may speak as, else an operator. */
  from?: SendRequest['from'];
  /** Refused (409 conflict) unless the message is at this version. */
  expect_version?: number;
}

/** editMessage: an EditBody whose content is `parts`, or `text` for one text part. */
export type EditOptions = Omit<EditBody, 'parts'> & { parts?: EditBody['parts']; text?: string };

export interface CreateRoomRequest {
  id: string;
  name?: string;
  members?: string[];
  visibility?: Visibility;
  write_policy?: WritePolicy;
}

export interface RegisterAgentRequest {
  requested_agent_id?: string;
  name?: string;
}

export interface MembersRequest {
  add?: string[];
  remove?: string[];
}
