// svc init: writes svc.yaml with the default local posture; prompts on a TTY unless --yes.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../config/load.js';
import { networkIdOfFolder, renderInitConfig, writeConfigFile } from '../../../config/init.js';
import { parseListenAddr } from '../../../config/posture.js';
import type { AuthMode } from '../../../config/types.js';
import { isId, secret } from '../../../protocol/ids.js';
import { EXIT, type Io } from '../../io.js';

export interface InitOptions {
  dir?: string;
  networkId?: string;
  name?: string;
  /** server.listen_addr to write (validated like `svc serve --listen`). */
  listen?: string;
  yes?: boolean;
  force?: boolean;
}

export interface InitAnswers {
  networkId: string;
  name: string;
  listen: string;
  mode: AuthMode;
}

/** Asks for the answers, starting from the defaults; tests inject their own. */
export type InitPrompter = (defaults: InitAnswers) => Promise<InitAnswers>;

const ID_RULE = 'letters, digits, . _ - (max 64), starting with a letter or digit';

/** The interactive questions, with @inquirer/prompts (loaded only when a TTY asks for it). */
export const inquirerPrompter: InitPrompter = async (d) => {
  const { input, select } = await import('@inquirer/prompts');
  const networkId = await input({ message: 'Network id', default: d.networkId, validate: (v) => isId(v) || ID_RULE });
  const name = await input({ message: 'Display name', default: d.name === d.networkId ? networkId : d.name });
  const listen = await input({ message: 'Listen address', default: d.listen, validate: (v) => listenProblem(v) ?? true });
  const mode = await select<AuthMode>({
    message: 'Auth mode',
    default: d.mode,
    choices: [
      { value: 'open', name: 'open: public read, agents self-register (local default)' },
      { value: 'bearer', name: 'bearer: static tokens with scopes; an admin token is generated' },
      { value: 'none', name: 'none: no checks at all (trusted local use only)' },
    ],
  });
  return { networkId, name, listen, mode };
};

function listenProblem(v: string): string | undefined {
  try {
    parseListenAddr(v);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export async function initCommand(io: Io, opts: InitOptions, ask: InitPrompter = inquirerPrompter): Promise<number> {
  const dir = path.resolve(opts.dir ?? '.');
  const file = path.join(dir, 'svc.yaml');
  if (opts.networkId !== undefined && !isId(opts.networkId)) {
    io.err(`svc init: --network-id "${opts.networkId}": must be ${ID_RULE}`);
    return EXIT.usage;
  }
  const listenBad = opts.listen !== undefined ? listenProblem(opts.listen) : undefined;
  if (listenBad !== undefined) {
    io.err(`svc init: --listen "${opts.listen}": ${listenBad}`);
    return EXIT.usage;
  }
  // Refuse before asking anything: answering four questions to be told "exists" is a waste.
  if (!opts.force && existsSync(file)) {
    io.err(`svc init: ${file} exists; pass --force to overwrite it`);
    return EXIT.failure;
  }
  const networkId = opts.networkId ?? networkIdOfFolder(dir);
  let answers: InitAnswers = { networkId, name: opts.name ?? networkId, listen: opts.listen ?? '127.0.0.1:8787', mode: 'open' };
  if (!opts.yes) {
    if (!io.isTTY) {
      io.err('svc init: not a TTY, so no questions; pass --yes to accept the defaults (with --network-id/--name to set them)');
      return EXIT.usage;
    }
    try {
      answers = await ask(answers);
    } catch (err) {
      // Ctrl-C or Ctrl-D in a prompt: nothing was written.
      if ((err as Error).name === 'ExitPromptError' || (err as Error).name === 'AbortPromptError') {
        io.err('svc init: cancelled; nothing written');
        return EXIT.failure;
      }
      throw err;
    }
  }
  const adminToken = answers.mode === 'bearer' ? secret(24) : undefined;
  const operatorToken = answers.mode === 'none' ? undefined : secret(32);
  try {
    const text = renderInitConfig({
      network_id: answers.networkId,
      name: answers.name,
      listen_addr: answers.listen,
      auth_mode: answers.mode,
      ...(adminToken ? { admin_token: adminToken } : {}),
      ...(operatorToken ? { operator_token: operatorToken } : {}),
    });
    writeConfigFile(file, text, { force: Boolean(opts.force) });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`svc init: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  io.out(`wrote ${file} (network ${answers.networkId}, ${answers.mode} mode, listening on ${answers.listen})`);
  if (adminToken) io.out(`admin token (shown once; it is also in svc.yaml): ${adminToken}`);
  // The posture rules of `serve` apply to what was just chosen: say so now, not at first start.
  try {
    for (const w of loadConfig(file, io.env, 'client').warnings) io.err(`warning: ${w.message}${w.action ? ` (${w.action})` : ''}`);
  } catch (err) {
    io.err(`warning: ${(err as Error).message}`);
  }
  const cfg = dir === process.cwd() ? '' : ` --config ${file}`;
  if (operatorToken) {
    io.out(
      `operator token written to svc.yaml (auth.tokens id operator; only you can read the file): svc commands run with this config use it`,
    );
  }
  io.out(`next: svc serve${cfg}`);
  if (operatorToken) io.out(`then: svc rooms create ID${cfg}   and   svc console${cfg}   (a one-time sign-in link with write access)`);
  return EXIT.ok;
}
