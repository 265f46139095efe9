#!/usr/bin/env node
// `svc` for tests, run from the TypeScript sources: tsx compiles src/ as it loads (cached on disk
// between runs), so a test needs no `npm run build`. The published package runs bin/svc.js (dist/).
import { register } from 'tsx/esm/api';

register();
await import('../../src/cli/main.ts');
