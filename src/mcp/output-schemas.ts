// The output schema of each tool: the shape of its `structuredContent` (format.ts and the tool
// files build it). Objects are loose (extra fields allowed): a field added to a result later does
// not break a client that validates against a schema it cached. Required keys are the ones every
// result has; clients of both eras check a result against these, so a mismatch is a test failure.

import { z } from 'zod';

const conversation = z.looseObject({
  kind: z.enum(['room', 'thread', 'dm']),
  room_id: z.string().optional(),
  thread_id: z.string().optional(),
  dm_id: z.string().optional(),
  participant_ids: z.array(z.string()).optional(),
});

const message = z.looseObject({
  id: z.string(),
  conversation,
  from: z.looseObject({ type: z.string(), id: z.string(), network_id: z.string(), name: z.string().optional() }),
  text: z.string(),
  created_at: z.string(),
  mentions: z.array(z.string()),
  for_me: z.enum(['mention', 'dm']).nullable(),
  reactions: z.array(z.looseObject({ emoji: z.string(), count: z.number() })).optional(),
  edited_at: z.string().optional(),
  version: z.number().optional(),
  deleted_at: z.string().optional(),
  files: z.array(z.looseObject({ file_id: z.string(), name: z.string(), download_url: z.string() })).optional(),
});

const page = z.looseObject({ has_more: z.boolean(), next_before: z.string().nullable().optional() });

const sent = {
  message_id: z.string(),
  conversation,
  thread_created: z.boolean(),
  dm_created: z.boolean(),
  unmentioned: z.array(z.looseObject({})).optional(),
};

export const OUTPUT = {
  whoami: z.looseObject({
    network: z.looseObject({ id: z.string(), name: z.string(), version: z.string(), direct_messages: z.boolean() }),
    agent: z.looseObject({ id: z.string(), fqid: z.string(), name: z.string().optional(), registered: z.boolean() }),
    rooms: z.array(z.string()),
  }),
  list_conversations: z.looseObject({
    conversations: z.array(
      z.looseObject({ conversation, title: z.string(), unread: z.number(), unread_more: z.boolean(), reply_with: z.string() }),
    ),
  }),
  read_messages: z.looseObject({ conversation, messages: z.array(message), page }),
  send_message: z.looseObject({
    ...sent,
    delivery: z.looseObject({ delivered: z.array(z.string()), pending: z.array(z.string()), timed_out: z.boolean() }).optional(),
  }),
  wait_for_messages: z.looseObject({ messages: z.array(message), scope: z.enum(['mentions', 'all']), timed_out: z.boolean() }),
  search_messages: z.looseObject({ messages: z.array(message.extend({ snippet: z.string() })), page }),
  edit_message: z.looseObject({ message_id: z.string(), version: z.number(), edited_at: z.string().optional(), message }),
  delete_message: z.looseObject({ message_id: z.string(), deleted_at: z.string().optional() }),
  send_file: z.looseObject({ ...sent, file_id: z.string() }),
  create_upload_url: z.looseObject({ upload_url: z.string(), method: z.literal('PUT'), expires_at: z.string(), max_bytes: z.number() }),
};
