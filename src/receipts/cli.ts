// How `svc read --receipts` (src/cli/commands/read/run.ts) shows receipts: each message's, asked
// a few at a time, and in one line. On the client alone, so the command loads nothing of the server.

import { ClientError } from '../client/errors.js';
import type { SvcClient } from '../client/svc-client.js';
import type { Message, MessageReceipts } from '../protocol/types.js';

/** Receipts in one line: `ann read, bob delivered, cat pending`. */
export function receiptLine(r: MessageReceipts['receipts']): string {
  return r.map((x) => `${x.reader.type === 'human' ? `human:${x.reader.id}` : x.reader.id} ${x.state}`).join(', ');
}

/** Each message's receipts, where the caller may read them (its own messages, or all for an admin). */
export async function receiptsOf(client: SvcClient, messages: readonly Message[]): Promise<Map<string, MessageReceipts['receipts']>> {
  const out = new Map<string, MessageReceipts['receipts']>();
  // A few at a time: a long page must not open hundreds of requests at once.
  for (let i = 0; i < messages.length; i += 8) {
    await Promise.all(
      messages.slice(i, i + 8).map(async (m) => {
        try {
          out.set(m.id, (await client.receipts(m.id)).receipts);
        } catch (err) {
          if (!(err instanceof ClientError) || (err.status !== 403 && err.status !== 404)) throw err;
        }
      }),
    );
  }
  return out;
}
