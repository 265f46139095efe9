// The receipts routes (docs/receipts.md), marking through the feature's own writer.

import type { Route } from '../http/router.js';
import type { ReceiptMarks } from './marks.js';
import { markMessageRead, messageReceipts } from './service.js';

export const receiptRoutes = (marks: ReceiptMarks): Route[] => [
  {
    method: 'GET',
    path: '/v1/messages/:message_id/receipts',
    action: 'history.read',
    handler: async ({ ctx, principal, params }) => ({ body: await messageReceipts(ctx, principal, params.message_id!) }),
  },
  {
    method: 'POST',
    path: '/v1/messages/:message_id/read',
    action: 'history.read',
    handler: async ({ ctx, principal, params, url }) => ({
      body: await markMessageRead(ctx, marks, principal, params.message_id!, url.searchParams.get('as') ?? undefined),
    }),
  },
];
