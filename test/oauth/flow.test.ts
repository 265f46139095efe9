// The OAuth flow of test/oauth/flow-suite.ts on the sqlite store.

import { startServer } from '../helpers/server.js';
import { oauthFlowSuite } from './flow-suite.js';

oauthFlowSuite('sqlite', async (config) => ({ s: await startServer({ config }) }));
