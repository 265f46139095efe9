// What a redaction leaves owed in the sqlite database's meta (#40 part 3), written in its own
// transaction (live, replayed and checkpointed alike), so a restart finishes what a stop
// interrupted: `search_rebuild` until the search worker has written its file again without the
// message (search-index.ts), `scrub_checkpoint` until a checkpoint has written the zeroed pages to
// svc.db and retired the journal generations holding the message as sent (scrub.ts).

import type { SqlRun as Run } from '../part.js';

export const REBUILD_KEY = 'search_rebuild';
export const SCRUB_CHECKPOINT_KEY = 'scrub_checkpoint';

const SET_OWED = 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

/** Marks a redaction's rebuild and checkpoint as owed. */
export function markRedaction(run: Run): void {
  run(SET_OWED, [REBUILD_KEY, '1']);
  run(SET_OWED, [SCRUB_CHECKPOINT_KEY, '1']);
}
