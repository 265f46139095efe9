// Online backup (#40 part 6): POST /v1/backup asks the server, which holds the sqlite store, for a
// consistent copy while writes go on (store/sqlite/engine/backup.ts). `svc backup` calls it; `svc
// restore` (server stopped) brings a backup back. Postgres and memory stores have none: the
// database's own tools back Postgres up (docs/operations.md), and memory keeps nothing.

import type { FeatureFactory } from '../feature.js';
import { backupRoutes } from './routes.js';

export const backupFeature: FeatureFactory = () => ({ routes: backupRoutes });
