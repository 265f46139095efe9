// MCP over Streamable HTTP at /v1/mcp (#27): the tools and inbox of `svc mcp`, served by the
// server itself so a remote agent needs only the URL and its token. The route passes the same
// admission gate as every other (limits, failed-auth counting, the credential, the route check).

import type { FeatureFactory } from '../feature.js';
import { mcpRoutes } from './routes.js';
import { InFlight } from './in-flight.js';
import { WaitLimit, WAITS_PER_CREDENTIAL, WAITS_PER_SERVER } from './wait-limit.js';

export const mcpHttpFeature: FeatureFactory = (app) => {
  const waits = new WaitLimit(() => {
    const l = app.ctx.config.server.limits;
    return { perCredential: l.mcp_waits_per_credential ?? WAITS_PER_CREDENTIAL, perServer: l.mcp_waits_per_server ?? WAITS_PER_SERVER };
  });
  return { routes: mcpRoutes({ waits, inFlight: new InFlight() }) };
};
