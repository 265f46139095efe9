// Receipts as a feature (#28 part 1, #39 part 2): everything receipts add, declared here. The
// feature makes the server's one receipt writer (writer.ts) and registers it as the network's
// `receipts` (network/receipts.ts), through which attachments' ACKs, SSE writes, MCP waits and
// history reads become marks; its routes; the last flush of gathered marks at shutdown; and the
// stored part it keeps (src/store/receipts/). Without this feature in the list nothing marks, the
// routes are not served and the store makes no receipts table.

import { storing, type FeatureFactory } from '../feature.js';
import { receiptsPart } from '../store/receipts/part.js';
import { receiptRoutes } from './routes.js';
import { messageReceipts, noteRead } from './service.js';
import { ReceiptWriter } from './writer.js';

export const receiptsFeature: FeatureFactory = storing([receiptsPart], (app) => {
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
});
