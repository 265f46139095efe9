// The OAuth flow of test/oauth/flow-suite.ts on a Postgres store (one instance: the provider's
// own state is not in the store yet, see docs/oauth.md).

import { freshSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import { oauthFlowSuite } from './flow-suite.js';

oauthFlowSuite('postgres', async (config) => {
  const pgs = await freshSchema();
  return { s: await startPgApp(pgs, config), cleanup: () => pgs.drop() };
});
