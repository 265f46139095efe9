// The live feature: SSE at /v1/events/stream, the WebSocket attachment at /v1/attach, presence and
// wake events; each event's audience resolved before live delivery.

import type { FeatureFactory } from '../feature.js';
import { attachUpgrade } from './attach/upgrade.js';
import { LiveHub } from './hub.js';
import { sseRoute } from './sse.js';

export const liveFeature: FeatureFactory = (app) => {
  const hub = new LiveHub(app.ctx, app.metrics, () => app.declared.events);
  let bound: { host: string; port: number } | undefined;
  return {
    routes: [sseRoute(hub)],
    prepare: hub.preparePublished,
    upgrade: attachUpgrade(hub, app.http, () => bound),
    started: (addr) => {
      bound = addr;
    },
    reloaded: (config) => hub.buffer.resize(config.server.event_buffer),
    close: () => hub.close(),
  };
};
