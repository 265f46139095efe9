// Receipts as a feature (#28 part 1): its routes, and the last flush of gathered marks at shutdown.
// The marks themselves come from the attachments (src/live/attach/receipts.ts), SSE streams and
// history reads, through the server's one writer (writer.ts).

import type { FeatureFactory } from '../feature.js';
import { receiptRoutes } from './routes.js';
import { receiptWriter } from './writer.js';

export const receiptsFeature: FeatureFactory = (app) => ({
  routes: receiptRoutes,
  close: () => receiptWriter(app.ctx).close(),
});
