// OAuth for MCP clients as a Feature: the protected-resource metadata of /v1/mcp, the provider
// under /oauth/ with its state and keys in the store, the admin routes over grants, and the
// periodic sweep of expired OAuth state.

import type { FeatureFactory } from '../feature.js';
import { adapterOver, startSweeper } from './adapter.js';
import { grantRoutes } from './grants-routes.js';
import { loadKeys } from './keys.js';
import type { ProviderState } from './provider.js';
import { oauthRoutes } from './routes.js';

export const oauthFeature: FeatureFactory = (app) => {
  const kv = app.ctx.store.kv;
  let state: Promise<ProviderState> | undefined;
  const loadState = (): Promise<ProviderState> => {
    // Read once; a failed read (store unavailable) is tried again by the next request.
    state ??= loadKeys(kv).then(
      (keys) => ({ adapter: adapterOver(kv), keys }),
      (err: unknown) => {
        state = undefined;
        throw err;
      },
    );
    return state;
  };
  let stopSweeper: (() => void) | undefined;
  return {
    routes: [...oauthRoutes({ address: () => app.address(), state: loadState }), ...grantRoutes],
    started: () => {
      stopSweeper = startSweeper(kv, undefined, (m) => app.ctx.log('warn', m));
    },
    close: () => stopSweeper?.(),
  };
};
