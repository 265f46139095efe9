// Read-modify-write of svc.yaml that keeps the operator's comments and layout: the change is made
// on the YAML document, the result is validated like a fresh load, then written atomically (temp
// file + fsync + rename, mode 0600) so a running server's watcher only ever sees a whole file.

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import { writeConfigFile } from './init.js';
import { ConfigError, parseConfig, parseYaml } from './load.js';
import type { LoadedConfig } from './types.js';

/** The parsed document of a config file, for reading and changing it. */
export function readConfigDocument(file: string): Document {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ConfigError(
      `${file}: ${e.code === 'ENOENT' ? 'no such file (run `svc init` to create one)' : `cannot read: ${e.message}`}`,
      file,
    );
  }
  parseYaml(text, file); // the same syntax errors as a load
  return parseDocument(text);
}

/**
 * Applies `change` to the file's document, checks the result as `svc serve` would and writes it.
 * Returns the loaded new config. Nothing is written when the change or the check throws.
 */
export function editConfigFile(file: string, change: (doc: Document) => void, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const doc = readConfigDocument(file);
  change(doc);
  const text = doc.toString({ lineWidth: 0 });
  // Written by client commands (invite) in any shell: a hook secret only the server has is a warning.
  const loaded = parseConfig(parseYaml(text, file), { baseDir: dirname(resolve(file)), env, file, hookSecrets: 'client' });
  writeConfigFile(file, text, { force: true });
  return { ...loaded, file: resolve(file) };
}

/** Appends `value` to the list at `path`, creating it; an empty flow list (`[]`) becomes a block list. */
export function appendTo(doc: Document, path: readonly (string | number)[], value: unknown): void {
  const node = doc.getIn(path, true);
  if (!isSeq(node)) {
    doc.setIn(path, doc.createNode([value]));
    return;
  }
  if (node.flow) {
    node.flow = false;
    // `key: []  # note` keeps its note above the first item rather than after the last.
    if (node.comment) {
      node.commentBefore = node.comment;
      node.comment = undefined;
    }
  }
  node.add(doc.createNode(value));
}

/** The index of the map in the list at `path` whose `key` equals `id`, or -1. */
export function indexById(doc: Document, path: readonly (string | number)[], id: string, key = 'id'): number {
  const node = doc.getIn(path, true);
  if (!isSeq(node)) return -1;
  return node.items.findIndex((item) => isMap(item) && item.get(key) === id);
}
