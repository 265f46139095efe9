// The console's static files, served from templates/console/ with their content types. Only flat
// file names with a known extension; the resolved path must stay inside the folder. A fixed list
// of vendored files comes from installed packages instead (no copy to drift from the lockfile), and
// a few are written from the server's own values (no list in the browser scripts to drift from it).

import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_TYPES } from '../protocol/types.js';

export const CONSOLE_DIR = fileURLToPath(new URL('../../templates/console/', import.meta.url));

const require = createRequire(import.meta.url);

/** Served name -> package file. The browser bundle is one self-contained UMD file. */
export const VENDOR_FILES: Readonly<Record<string, string>> = {
  'markdown-it.min.js': 'markdown-it/dist/markdown-it.min.js',
};

function vendorPath(name: string): string | undefined {
  const spec = Object.hasOwn(VENDOR_FILES, name) ? VENDOR_FILES[name] : undefined;
  if (spec === undefined) return undefined;
  try {
    return require.resolve(spec);
  } catch {
    return undefined;
  }
}

/**
 * Served name -> the module's text, made from what the server itself uses. live.js imports the
 * event types from here, so the console follows exactly the types protocol/types.ts lists.
 */
export const GENERATED_FILES: Readonly<Record<string, string>> = {
  'event-types.js': `// Written by the server from src/protocol/types.ts: every event type the SSE stream names.\nexport const EVENT_TYPES = ${JSON.stringify(EVENT_TYPES)};\n`,
};

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** Content type of a served file name, or undefined when the extension is not served. */
export function contentTypeOf(name: string): string | undefined {
  return TYPES[path.extname(name).toLowerCase()];
}

/** Whether `name` is a plain file name inside the folder (no separators, dots-only or hidden names). */
export function isSafeAssetName(name: string): boolean {
  return NAME.test(name) && !name.includes('..') && contentTypeOf(name) !== undefined;
}

/** Reads one asset, or undefined when it does not exist or would leave the folder. */
export async function loadAsset(name: string, dir: string = CONSOLE_DIR): Promise<Asset | undefined> {
  if (!isSafeAssetName(name)) return undefined;
  if (dir === CONSOLE_DIR && Object.hasOwn(GENERATED_FILES, name)) return assetOf(name, Buffer.from(GENERATED_FILES[name]!));
  const vendored = dir === CONSOLE_DIR ? vendorPath(name) : undefined;
  if (vendored !== undefined) return readAsset(name, vendored);
  const root = path.resolve(dir);
  const file = path.resolve(root, name);
  if (path.dirname(file) !== root) return undefined;
  try {
    // A symlink pointing out of the folder is refused like a traversal.
    const real = await realpath(file);
    const realRoot = await realpath(root);
    if (!real.startsWith(realRoot + path.sep)) return undefined;
    return await readAsset(name, real);
  } catch {
    return undefined;
  }
}

async function readAsset(name: string, file: string): Promise<Asset | undefined> {
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    return undefined;
  }
  return assetOf(name, body);
}

function assetOf(name: string, body: Buffer): Asset {
  return { body, type: contentTypeOf(name)!, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Whether an If-None-Match header matches the entity tag. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === etag || v === '*';
  });
}
