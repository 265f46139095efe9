// Before the config's operator token goes to a server that was not found through this config's
// live runtime file, the server must say (anonymously, GET /v1/network) that it is this config's
// network: another network listening on the config's port (a second folder, an old server) never
// receives the token. Cheap on loopback; skipped when the runtime file vouches for the URL.

import path from 'node:path';
import { ClientError } from '../client/errors.js';
import { SvcClient } from '../client/svc-client.js';
import { startCommandOf, TargetError, type Target } from './target.js';

/** What the anonymous probe learned: the network id, or that the server keeps its document private. */
export type NetworkProbe = { id: string } | { hidden: true };

/** The refusal for a probe that does not name the config's network; undefined when the token may go. */
export function networkRefusal(target: Target, probe: NetworkProbe): string | undefined {
  const cfg = path.basename(target.configFile);
  const expected = target.networkId;
  if (expected === undefined) return undefined;
  const fix = `start this config's server with ${startCommandOf(target)}, or pass --url (and --token) for the server you mean`;
  if ('hidden' in probe) {
    return `the server at ${target.url} does not show its network to an anonymous caller, so it cannot be told to be network ${expected} of ${cfg}: the operator token was not sent; ${fix}`;
  }
  if (probe.id === expected) return undefined;
  return `the server at ${target.url} is network ${probe.id}, not ${expected} of ${cfg}: the operator token was not sent; ${fix}`;
}

/** Whether the target would send the config's operator token to a server nothing has vouched for yet. */
export function needsNetworkCheck(target: Target): boolean {
  return target.tokenSource === 'config' && !target.verified && target.networkId !== undefined;
}

/**
 * Asks the target anonymously which network it is; throws TargetError when it is not the config's.
 * Returns the target, marked verified once the probe named the config's network (so nothing asks
 * again later in the same command).
 */
export async function checkOwnNetwork(target: Target): Promise<Target> {
  if (!needsNetworkCheck(target)) return target;
  const client = new SvcClient({ url: target.url, startCommand: startCommandOf(target), timeoutMs: 5000 });
  let probe: NetworkProbe;
  try {
    probe = { id: (await client.network()).id };
  } catch (err) {
    if (!(err instanceof ClientError) || (err.status !== 401 && err.status !== 403)) throw err;
    probe = { hidden: true };
  } finally {
    await client.close().catch(() => undefined);
  }
  const refusal = networkRefusal(target, probe);
  if (refusal !== undefined) throw new TargetError(refusal);
  return { ...target, verified: true };
}
