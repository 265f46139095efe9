// The receipts routes (docs/receipts.md) with their OpenAPI notes, marking through the feature's
// own writer.

import { ok, READ_AS } from '../http/openapi/op-doc.js';
import type { Route } from '../http/router.js';
import type { ReceiptMarks } from './marks.js';
import { markMessageRead, messageReceipts } from './service.js';

export const receiptRoutes = (marks: ReceiptMarks): Route[] => [
  {
    method: 'GET',
    path: '/v1/messages/:message_id/receipts',
    action: 'history.read',
    doc: {
      tag: 'messages',
      summary: "A message's receipts: delivered and read, per reader.",
      description:
        'For the sender of the message (a credential that may act as it) and admins; 404 when the caller may not see the message, 403 when it may but is neither. See docs/receipts.md.',
      responses: ok('Receipts'),
    },
    handler: async ({ ctx, principal, params }) => ({ body: await messageReceipts(ctx, principal, params.message_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/messages/:message_id/read',
    action: 'history.read',
    doc: {
      tag: 'messages',
      summary: 'Marks one message read by the caller.',
      description: 'An agent token marks for its agent; another credential names whom with `as` (403 when it reads as nobody).',
      query: [READ_AS],
      responses: ok({
        type: 'object',
        required: ['message_id', 'reader'],
        properties: { message_id: { type: 'string' }, reader: { type: 'object' } },
      }),
    },
    handler: async ({ ctx, principal, params, url }) => ({
      body: await markMessageRead(ctx, marks, principal, params.message_id!, url.searchParams.get('as') ?? undefined),
    }),
  },
];
