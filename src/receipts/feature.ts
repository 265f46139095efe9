// Receipts as a feature (#28 part 1, #39 part 2): everything receipts add, declared here. The
// feature makes the server's one receipt writer (writer.ts) and observes what reached whom
// (network/reached.ts): attachments' ACKs (ledger.ts), an agent's SSE writes (stream.ts), MCP waits
// and history reads become marks. It also declares its routes, what it provides by name (a
// message's receipts, for the MCP tools over HTTP), the last flush of gathered marks at shutdown,
// and the stored part it keeps (src/store/receipts/). Without this feature in the list nothing
// marks, the routes are not served and the store makes no receipts table.

import type { Principal } from '../auth/principal.js';
import { storing, type FeatureFactory, type LiveEvent } from '../feature.js';
import type { MessageReceipts } from '../protocol/types.js';
import { convKeyOf } from '../store/types.js';
import { receiptsPart } from '../store/receipts/part.js';
import { DeliveryLedger } from './ledger.js';
import { receiptRoutes } from './routes.js';
import { messageReceipts, noteRead } from './service.js';
import { StreamReceipts } from './stream.js';
import { ReceiptWriter } from './writer.js';

/** Who read or got how far in one conversation: for whoever may see it, never anonymous, and for observers only (no attached runtime has use for it). */
export const receiptsEvent: LiveEvent = {
  type: 'message.receipts',
  target: (e) => e.receipts?.target,
  public: false,
  attachments: false,
  replacesItsLast: true,
};

export const receiptsFeature: FeatureFactory = storing([receiptsPart], (app) => {
  const { ctx } = app;
  const writer = new ReceiptWriter(ctx);
  // `server.receipts: false` records nothing: no ledger or stream is kept (the writer refuses marks too).
  const recording = () => ctx.config.server.receipts !== false;
  return {
    routes: receiptRoutes(writer),
    events: [receiptsEvent],
    reached: {
      attachment: (agentId, start) => (recording() ? new DeliveryLedger(writer, agentId, start) : undefined),
      stream: (agentId, from) => (recording() ? new StreamReceipts(writer, agentId, from) : undefined),
      handedOver: (agentId, m, seq) => writer.mark(`agent:${agentId}`, convKeyOf(m.target), 'delivered', seq, seq, m.target),
      pageRead: (reader, messages) =>
        void noteRead(ctx, writer, reader, messages).catch((err: unknown) =>
          ctx.log('warn', 'receipts: a read was not noted', { error: String(err) }),
        ),
    },
    provides: { receipts: { ofMessage: (p, id) => messageReceipts(ctx, p, id) } },
    close: () => writer.close(),
  };
});

declare module '../network/context.js' {
  interface Provided {
    /** A message's receipts, for its sender and admins (what GET /v1/messages/{id}/receipts answers); absent without this feature. */
    readonly receipts: { ofMessage(p: Principal, id: string): Promise<MessageReceipts> };
  }
}
