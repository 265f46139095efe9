// OAuth for MCP clients as a Feature: for now the protected-resource metadata of /v1/mcp.

import type { FeatureFactory } from '../feature.js';
import { oauthRoutes } from './routes.js';

export const oauthFeature: FeatureFactory = (app) => ({ routes: oauthRoutes({ address: () => app.address() }) });
