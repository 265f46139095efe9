// svc console: prints a one-time, short-lived sign-in link to the web console of the config's
// server, issued with the caller's admin token (the operator token by default). The token stays
// out of the URL; the link's code works once.

import { parseDuration } from '../../../pairing/invite.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { withClient, type ClientFlags } from '../../with-client.js';

export interface ConsoleFlags extends ClientFlags {
  /** How long the link stays valid (default 2m, at most 10m). */
  expires?: string;
}

/** Seconds of a --expires duration: 1 s to 10 min. */
export function linkTtlSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new UsageError(`--expires: ${(err as Error).message}`);
  }
  const s = Math.round(ms / 1000);
  if (s < 1 || s > 600) throw new UsageError('--expires: must be from 1s to 10m');
  return s;
}

export function consoleCommand(io: Io, flags: ConsoleFlags): Promise<number> {
  return withClient(io, 'console', flags, async (client, target) => {
    const ttl = linkTtlSeconds(flags.expires);
    if (target.token === undefined) {
      throw new UsageError(
        `no admin token for ${target.url}: run it with the config of that server (its operator token), or pass --token (env SVC_TOKEN)`,
      );
    }
    const link = await client.consoleSignInLink(ttl);
    if (flags.json) {
      io.out(JSON.stringify(link));
      return EXIT.ok;
    }
    io.err(`one-time sign-in link (works once, until ${link.expires_at}; the session gets this token's scopes):`);
    io.out(link.url);
    return EXIT.ok;
  });
}
