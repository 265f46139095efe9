// Runs a client command: resolves the target, opens the client, turns every known failure into one
// line on stderr and an exit code (1 failure, 2 usage), and closes the client.

import { ClientError } from '../client/errors.js';
import type { ClientFlags } from '../feature-cli.js';
import { SvcClient } from '../client/svc-client.js';
import type { AgentNeed, AgentPick } from './agent-token.js';
import { oneLine } from './format.js';
import { EXIT, type Io } from './io.js';
import { resolveTarget, startCommandOf, TargetError, UsageError, type Target } from './target.js';
import { checkOwnNetwork } from './target-check.js';
import { refusalHint } from './hints.js';

export type { ClientFlags };

/** A listing command's flags (rooms list, agents list). */
export interface ListFlags extends ClientFlags {
  /** Only this many (newest); all when absent. */
  limit?: number;
}

/** Calls `fn` with a client for the resolved target; returns its exit code or the failure's. */
export async function withClient(
  io: Io,
  name: string,
  flags: ClientFlags,
  fn: (client: SvcClient, target: Target, pick?: AgentPick) => Promise<number>,
  opts: { operatorToken?: boolean; agent?: AgentNeed } = {},
): Promise<number> {
  let client: SvcClient | undefined;
  let target: Target | undefined;
  let pick: AgentPick | undefined;
  try {
    target = resolveTarget(flags, io.env);
    if (opts.operatorToken === false && target.tokenSource === 'config') target = withoutToken(target);
    target = await checkOwnNetwork(target);
    // A command acting as an agent: the agent's kept token, or the agent an agent token names.
    if (opts.agent) {
      const { pickAgentToken } = await import('./agent-token.js');
      pick = await pickAgentToken(target, opts.agent, io.env, (l) => io.err(`svc ${name}: ${l}`));
      target = pick.target;
    }
    client = new SvcClient({
      url: target.url,
      startCommand: startCommandOf(target),
      ...(target.token !== undefined ? { token: target.token } : {}),
    });
    return await fn(client, target, pick);
  } catch (caught) {
    const err = opts.agent
      ? await (await import('./agent-token.js')).withCredentialHint(caught, pick ?? (target ? { target } : undefined), io.env)
      : caught;
    return reportFailure(io, name, err, flags.debug, target);
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** The error with the CLI's hint for its refusal in place of the client's generic one. */
export function withRefusalHint(err: ClientError, target: Target): ClientError {
  if (err.status === undefined || err.detail === undefined) return err;
  const hint = refusalHint(err.status, err.code, err.detail, {
    url: target.url,
    ...(target.tokenSource ? { tokenSource: target.tokenSource } : {}),
    configFile: target.configFile,
    configExists: target.configExists,
  });
  if (hint === undefined) return err;
  return new ClientError(`${err.status} ${err.code}: ${err.detail}; ${hint}`, err.status, err.code, err.requestId, {
    cause: err,
    detail: err.detail,
  });
}

function withoutToken(t: Target): Target {
  const { token: _token, tokenSource: _source, operatorScopes: _scopes, ...rest } = t;
  return rest;
}

/**
 * Prints a known failure as one line and returns its exit code; rethrows anything else (main
 * prints it). With the target known, a refusal (401/403/404) ends with the command that fixes it.
 */
export function reportFailure(io: Io, name: string, err: unknown, debug?: boolean, target?: Target): number {
  if (target && err instanceof ClientError) err = withRefusalHint(err, target);
  if (err instanceof UsageError) {
    io.err(`svc ${name}: ${err.message}`);
    return EXIT.usage;
  }
  // ConfigError is known by name: importing its class would load the config schema for every command.
  if (err instanceof ClientError || err instanceof TargetError || (err instanceof Error && err.name === 'ConfigError')) {
    // The message may quote the server's error text: the io guard lets colour codes through (ours),
    // so a server's own escape sequences are removed here.
    io.err(`svc ${name}: ${oneLine(err.message)}`);
    if (debug && err.cause) io.err(String((err.cause as Error).stack ?? String(err.cause)));
    return EXIT.failure;
  }
  throw err;
}

/**
 * What an anonymous listing hides, for lists the server filters by who asks: the CLI is anonymous
 * exactly when it sends no token (no --token, no SVC_TOKEN, no operator token of the config for
 * this server). Undefined when a token was sent.
 */
export function anonymousHint(target: Target, hidden: string): string | undefined {
  if (target.token !== undefined) return undefined;
  return `no token was sent, so this shows only what an anonymous caller may see (${hidden}); to see more pass --token with the observe scope (env SVC_TOKEN), or run it with the server's own svc.yaml (--config) whose operator token is used`;
}
