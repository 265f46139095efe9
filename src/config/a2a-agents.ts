// The `a2a_agents` section of svc.yaml (remote A2A agents as room members, docs/a2a.md "Outbound"),
// once the schema has accepted it: the bearer token read from `auth_env`, the card URL checked,
// ids unique. The feature (src/a2a/outbound/) takes these as they are; `svc apply` sends the same
// shape with the token resolved.

import { privateHostRefusal } from '../protocol/private-address.js';
import type { Warning } from '../protocol/types.js';
import { checkUniqueIds, type HookSecrets } from './sections.js';

export interface A2aAgentConfig {
  id: string;
  name?: string;
  /** The agent card's URL (a URL ending in `/` names the folder of `.well-known/agent-card.json`). */
  card_url: string;
  /** The variable the token was read from (informative once resolved). */
  auth_env?: string;
  /** The bearer token sent to the agent (from auth_env); absent: none is sent. */
  token?: string;
  /** Rooms the agent is a member of. */
  rooms: string[];
  check_interval_ms: number;
  /** Consecutive failures after which the agent is down. */
  down_after: number;
  timeout_ms: number;
  /**
   * Whether the card and the interfaces it names may be on a loopback, private or reserved address
   * (the outbound guard of every request svc makes, src/http/outbound.ts, judges every connection when not).
   */
  allow_private_network: boolean;
  /** Wakes older than this (ms since stored) are not sent: read after a stop, they are skipped. */
  catch_up_max_age_ms: number;
}

export type FileA2aAgent = Omit<A2aAgentConfig, 'token'>;

/** The defaults of the schema, for declarations that arrive without them (`svc apply`). */
export const A2A_AGENT_DEFAULTS = {
  check_interval_ms: 60_000,
  down_after: 3,
  timeout_ms: 120_000,
  catch_up_max_age_ms: 3_600_000,
  allow_private_network: false,
} as const;

/** The card's URL: `card_url` itself, or the well-known card under it when it ends in `/`. */
export function cardUrlOf(a: Pick<A2aAgentConfig, 'card_url'>): string {
  return a.card_url.endsWith('/') ? new URL('.well-known/agent-card.json', a.card_url).href : a.card_url;
}

/** Checks one agent's card URL (the schema checked the rest); `at` is its key path. */
export function checkA2aAgent(
  a: Pick<A2aAgentConfig, 'card_url'> & { allow_private_network?: boolean },
  at: string,
  fail: (line: string) => never,
): void {
  let url: URL;
  try {
    url = new URL(a.card_url);
  } catch {
    fail(`${at}.card_url: not a valid URL`);
  }
  if (url!.username || url!.password) fail(`${at}.card_url: must not carry credentials (name a variable in auth_env instead)`);
  // A literal is refused here; a name is judged on its addresses when the card is fetched.
  const refusal = privateHostRefusal(url!.hostname);
  if (refusal && !a.allow_private_network)
    fail(`${at}.card_url: ${refusal}; set ${at}.allow_private_network: true to allow an agent on a private network`);
}

/**
 * Resolves the section; a token variable follows the hook secrets' rules (`serve` and `apply` fail
 * on a missing one, any other command warns), since the same process reads it the same way.
 */
export function resolveA2aAgents(
  list: readonly FileA2aAgent[],
  env: NodeJS.ProcessEnv,
  fail: (line: string) => never,
  secrets: HookSecrets = 'serve',
  warnings: Warning[] = [],
): A2aAgentConfig[] {
  const out = list.map((a, i): A2aAgentConfig => {
    const at = `a2a_agents[${i}]`;
    checkA2aAgent(a, at, fail);
    if (a.auth_env === undefined) return { ...a };
    const v = env[a.auth_env];
    if (v !== undefined && v !== '') return { ...a, token: v };
    const what = `environment variable ${a.auth_env} ${v === undefined ? 'is not set' : 'is empty'}`;
    if (secrets === 'serve') fail(`${at}.auth_env: ${what}; svc serve reads the agent's token from its own environment when it starts`);
    if (secrets === 'apply') fail(`${at}.auth_env: ${what} (svc apply reads the token here and sends it to the server)`);
    warnings.push({
      severity: 'warning',
      code: 'a2a_token_unset',
      message: `${at}.auth_env: ${what} in this shell; only the server needs it, when it starts`,
      action: `make sure ${a.auth_env} is set in the environment svc serve starts with`,
    });
    return { ...a };
  });
  checkUniqueIds(
    out.map((a) => a.id),
    'a2a_agents',
    fail,
  );
  return out;
}
