// svc init: writes svc.yaml with the default local posture; prompts on a TTY unless --yes.

import path from 'node:path';
import { ConfigError } from '../../config/load.js';
import { renderInitConfig, writeConfigFile } from '../../config/init.js';
import { secret } from '../../protocol/ids.js';
import { isId } from '../../protocol/ids.js';
import { EXIT, type Io } from '../io.js';

export interface InitOptions {
  dir?: string;
  networkId?: string;
  name?: string;
  yes?: boolean;
  force?: boolean;
}

export async function initCommand(io: Io, opts: InitOptions): Promise<number> {
  const dir = path.resolve(opts.dir ?? '.');
  const file = path.join(dir, 'svc.yaml');
  let networkId = opts.networkId ?? defaultNetworkId(dir);
  let name = opts.name ?? networkId;
  let listen = '127.0.0.1:8787';
  let mode: 'open' | 'bearer' | 'none' = 'open';
  if (!opts.yes) {
    if (!io.isTTY) {
      io.err('svc init: not a TTY; pass --yes to accept the defaults (or --network-id/--name)');
      return EXIT.usage;
    }
    const { input, select } = await import('@inquirer/prompts');
    networkId = await input({ message: 'Network id', default: networkId, validate: (v) => isId(v) || 'letters, digits, . _ - (max 64), starting with a letter or digit' });
    name = await input({ message: 'Display name', default: opts.name ?? networkId });
    listen = await input({ message: 'Listen address', default: listen, validate: (v) => /^(\[[^\]]+\]|[^:]*):\d{1,5}$/.test(v) || 'host:port' });
    mode = await select({
      message: 'Auth mode',
      default: 'open',
      choices: [
        { value: 'open', name: 'open: public read, agents self-register (local default)' },
        { value: 'bearer', name: 'bearer: static tokens with scopes; an admin token is generated' },
        { value: 'none', name: 'none: no checks at all (trusted local use only)' },
      ],
    });
  }
  const adminToken = mode === 'bearer' ? secret(24) : undefined;
  try {
    const text = renderInitConfig({ network_id: networkId, name, listen_addr: listen, auth_mode: mode, ...(adminToken ? { admin_token: adminToken } : {}) });
    writeConfigFile(file, text, { force: Boolean(opts.force) });
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`svc init: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  io.out(`wrote ${file} (network ${networkId}, ${mode} mode, listening on ${listen})`);
  if (adminToken) io.out(`admin token (shown once, stored in svc.yaml): ${adminToken}`);
  io.out('next: svc serve');
  return EXIT.ok;
}

function defaultNetworkId(dir: string): string {
  const base = path.basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '');
  return isId(base) ? base : 'home';
}
