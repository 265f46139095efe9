// The OAuth flow of test/oauth/flow-suite.ts on the sqlite store.

import { startApp } from '../helpers/app.js';
import { oauthFlowSuite } from './flow-suite.js';

oauthFlowSuite('sqlite', async (config) => ({ s: await startApp({ config }) }));
