// The default features of `svc serve`, each a FeatureFactory (src/feature.ts) in its own folder as
// <folder>/feature.ts. The app combines their contributions into lists, so this order only sets
// start order. `serve` and in-process tests pass this list to createApp; app.ts never imports it.

import type { FeatureFactory } from './feature.js';
import { liveFeature } from './live/feature.js';
import { loopGuardFeature } from './loop-guard/feature.js';
import { requestLimitsFeature } from './request-limits/feature.js';
import { metricsFeature } from './metrics/feature.js';
import { consoleFeature } from './console/feature.js';
import { discoveryFeature } from './discovery/feature.js';
import { pairingFeature } from './pairing/feature.js';
import { mcpHttpFeature } from './mcp-http/feature.js';
import { reactionsFeature } from './reactions/feature.js';
import { messageLifecycleFeature } from './message-lifecycle/feature.js';
import { retentionFeature } from './retention/feature.js';
import { backupFeature } from './backup/feature.js';
import { exportFeature } from './export/feature.js';
import { receiptsFeature } from './receipts/feature.js';
import { deliveryFeature } from './delivery/feature.js';
import { webhooksFeature } from './webhooks/feature.js';
import { oauthFeature } from './oauth/feature.js';
import { filesFeature } from './files/feature.js';
import { a2aOutboundFeature } from './a2a/outbound/feature.js';
import { a2aInboundFeature } from './a2a/inbound/feature.js';

export const defaultFeatures: readonly FeatureFactory[] = [
  metricsFeature,
  requestLimitsFeature,
  loopGuardFeature,
  consoleFeature,
  discoveryFeature,
  oauthFeature,
  pairingFeature,
  messageLifecycleFeature,
  retentionFeature,
  backupFeature,
  exportFeature,
  filesFeature,
  reactionsFeature,
  // Before live: features close in reverse order, so the last ACKs are flushed after attachments end.
  receiptsFeature,
  // Before live too: the attachments' last records (detached, acknowledged) are written before it closes.
  deliveryFeature,
  liveFeature,
  mcpHttpFeature,
  webhooksFeature,
  a2aOutboundFeature,
  a2aInboundFeature,
];
