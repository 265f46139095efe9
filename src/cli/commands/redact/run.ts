// svc redact MESSAGE: an operator's redaction (the admin scope; the config's operator token or
// --token). It cannot be undone, so it asks first on a terminal, and without a terminal it needs
// --yes (as svc connect and svc init: nobody is there to answer). After it, one look at /readyz
// tells whether the store's own scrub (sqlite: search index, free pages, journal) is done or still
// running in the background.

import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { reportFailure, withClient, type ClientFlags } from '../../with-client.js';
import type { SvcClient } from '../../../client/svc-client.js';

export interface RedactFlags extends ClientFlags {
  yes?: boolean;
}

/** Asks the operator on a terminal; tests drive the real prompt through a pseudo-terminal. */
async function confirm(message: string): Promise<boolean> {
  return (await import('@inquirer/prompts')).confirm({ message, default: false }).catch(() => false);
}

export function redactCommand(io: Io, messageId: string, flags: RedactFlags): Promise<number> {
  // Refused before anything is looked up: without a terminal the answer is the same whatever the server says.
  if (!flags.yes && !io.isTTY)
    return Promise.resolve(
      reportFailure(
        io,
        'redact',
        new UsageError(`not a terminal, so nobody can confirm; pass --yes to redact ${messageId} (it cannot be undone)`),
      ),
    );
  return withClient(io, 'redact', flags, async (client) => {
    if (!flags.yes) {
      const agreed = await confirm(`Redact ${messageId}? Its content is removed from everything svc keeps; this cannot be undone.`);
      if (!agreed) {
        io.err(`svc redact: nothing redacted`);
        return EXIT.failure;
      }
    }
    const m = await client.redactMessage(messageId);
    if (flags.json) {
      io.out(json(m));
      return EXIT.ok;
    }
    io.out(`redacted ${m.id}: a tombstone stays in its place; its content is gone from the store`);
    const scrub = await scrubState(client);
    if (scrub === 'pending')
      io.out(
        'the store is still scrubbing it in the background (search index, free pages, journal): GET /readyz says redaction_scrub: done when it ends',
      );
    else if (scrub === 'done') io.out('the store has finished scrubbing it (search index, free pages, journal)');
    return EXIT.ok;
  });
}

/** The sqlite store's scrub as /readyz reports it; undefined on a backend that has none, or when the look fails (the redaction stands). */
async function scrubState(client: SvcClient): Promise<'pending' | 'done' | undefined> {
  try {
    return (await client.ready()).store?.redaction_scrub;
  } catch {
    return undefined;
  }
}
