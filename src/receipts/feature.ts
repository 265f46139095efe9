// Receipts as a feature (#28 part 1, #39 part 2): everything receipts add, declared here. The
// feature makes the server's one receipt writer (writer.ts) and registers it as the network's
// `receipts` (network/receipts.ts), through which attachments' ACKs, SSE writes, MCP waits and
// history reads become marks; its routes; and the last flush of gathered marks at shutdown.
// Without this feature in the list nothing marks and the routes are not served. Its store tables
// are still made by every backend's schema: the feature API declares no store parts yet.

import type { FeatureFactory } from '../feature.js';
import { receiptRoutes } from './routes.js';
import { messageReceipts, noteRead } from './service.js';
import { ReceiptWriter } from './writer.js';

export const receiptsFeature: FeatureFactory = (app) => {
  const { ctx } = app;
  const writer = new ReceiptWriter(ctx);
  return {
    routes: receiptRoutes(writer),
    receipts: {
      marks: writer,
      pageRead: (p, as, messages) =>
        void noteRead(ctx, writer, p, as, messages).catch((err: unknown) =>
          ctx.log('warn', 'receipts: a read was not noted', { error: String(err) }),
        ),
      ofMessage: (p, id) => messageReceipts(ctx, p, id),
    },
    close: () => writer.close(),
  };
};
