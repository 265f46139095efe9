// The operator warnings of the network document that come from this process and its store:
// stale-running-server (svc was upgraded on disk, the server still runs the old code) and
// migration-risk (this start migrated an existing store). Builders are pure; only
// installedVersion reads a file (the install's package.json, re-read at most every few seconds).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Warning } from '../protocol/types.js';
import type { SchemaChange } from '../store/types.js';

/** Where each warning is explained (relative to the install, as the README links docs). */
export const WARNING_DOCS = 'docs/warnings.md';

/**
 * Warnings that name rooms and message ids (relay_refused) or agents of any room, private ones too
 * (agent_wakes_waiting): shown only to callers who may read the pairings (observe or admin, never
 * anonymous nor a self-registered agent token).
 */
export const PAIRING_READERS_ONLY: ReadonlySet<string> = new Set(['relay_refused', 'agent_wakes_waiting']);

const PACKAGE_JSON = fileURLToPath(new URL('../../package.json', import.meta.url));
/** How long an installed version read stays fresh (a network document per request must not read a file each). */
const CACHE_MS = 5_000;
let cached: { at: number; version: string | undefined } | undefined;

/** The version of the svc package installed where this process was started from, as it is on disk now. */
export function installedVersion(file: string = PACKAGE_JSON, nowMs: number = Date.now()): string | undefined {
  if (file === PACKAGE_JSON && cached && nowMs - cached.at < CACHE_MS) return cached.version;
  let version: string | undefined;
  try {
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
    version = typeof v === 'string' ? v : undefined;
  } catch {
    version = undefined;
  }
  if (file === PACKAGE_JSON) cached = { at: nowMs, version };
  return version;
}

/** stale-running-server: the process runs `running`, the install on disk is `installed`. */
export function staleServerWarning(running: string, installed: string | undefined): Warning[] {
  if (installed === undefined || installed === running) return [];
  return [
    {
      severity: 'warning',
      code: 'stale-running-server',
      message: `this server runs svc ${running}, and svc ${installed} is installed now where it was started from: the running process still has the old code`,
      action: 'restart it to pick up the new one (stop svc serve, start it again)',
      docs_url: `${WARNING_DOCS}#stale-running-server`,
    },
  ];
}

/** migration-risk: this start migrated an existing store, so an older svc can no longer open it. */
export function migrationWarning(change: SchemaChange | undefined): Warning[] {
  if (!change) return [];
  return [
    {
      severity: 'warning',
      code: 'migration-risk',
      message: `this start migrated the store from schema version ${change.from} to ${change.to} (svc ${change.by}); an older svc refuses it from now on`,
      action: 'to go back to the older svc, restore the copy taken before the upgrade; take one before each upgrade (svc store copy)',
      docs_url: `${WARNING_DOCS}#migration-risk`,
    },
  ];
}

/**
 * config_reload_refused: the config file changed and the running server refused the new version
 * (an invalid file, a hook secret its environment never had, a new network.id). `reason` is the
 * load error without the file's path (warnings carry no paths); `file` is the file's base name.
 */
export function reloadRefusedWarning(file: string, reason: string, at: Date): Warning {
  return {
    severity: 'warning',
    code: 'config_reload_refused',
    message: `${file} changed (${at.toISOString()}) and the server refused the new version: ${reason}; it keeps running the config it had`,
    action: `fix ${file} (the server reloads it on save), or restart svc serve when the change needs a restart (a new hook secret variable, network.id)`,
    docs_url: `${WARNING_DOCS}#config_reload_refused`,
  };
}
