// Receipts as a feature (#28 part 1, #39 part 2): everything receipts add, declared here. The
// feature makes the server's one receipt writer (writer.ts) and registers it as the network's
// `receipts` (network/receipts.ts), through which attachments' ACKs (ledger.ts), an agent's SSE
// writes (stream.ts), MCP waits and history reads become marks; its routes; the last flush of gathered marks at shutdown; and the
// stored part it keeps (src/store/receipts/). Without this feature in the list nothing marks, the
// routes are not served and the store makes no receipts table.

import { storing, type FeatureFactory } from '../feature.js';
import { convKeyOf } from '../store/types.js';
import { receiptsPart } from '../store/receipts/part.js';
import { DeliveryLedger } from './ledger.js';
import { receiptRoutes } from './routes.js';
import { messageReceipts, noteRead } from './service.js';
import { StreamReceipts } from './stream.js';
import { ReceiptWriter } from './writer.js';

export const receiptsFeature: FeatureFactory = storing([receiptsPart], (app) => {
  const { ctx } = app;
  const writer = new ReceiptWriter(ctx);
  // `server.receipts: false` records nothing: no ledger or stream is kept (the writer refuses marks too).
  const recording = () => ctx.config.server.receipts !== false;
  return {
    routes: receiptRoutes(writer),
    provides: {
      receipts: {
        attachment: (agentId, start) => (recording() ? new DeliveryLedger(writer, agentId, start) : undefined),
        stream: (agentId, from) => (recording() ? new StreamReceipts(writer, agentId, from) : undefined),
        handedOver: (agentId, m, seq) => writer.mark(`agent:${agentId}`, convKeyOf(m.target), 'delivered', seq, seq, m.target),
        pageRead: (p, as, messages) =>
          void noteRead(ctx, writer, p, as, messages).catch((err: unknown) =>
            ctx.log('warn', 'receipts: a read was not noted', { error: String(err) }),
          ),
        ofMessage: (p, id) => messageReceipts(ctx, p, id),
      },
    },
    close: () => writer.close(),
  };
});
