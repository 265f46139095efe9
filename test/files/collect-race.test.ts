// The collection's race with an upload of the same bytes (#41): the collector removes a file no
// message references any more and then deletes its blob when no other file names it; an upload of
// identical bytes that lands between the two finds the blob there (so keeps no copy of its own) and
// must still be served. The test hook SVC_FAULT_FILES_COLLECT_PAUSE_FILE (src/files/faults.ts) holds
// the collector right after it counted the blob's users, so the upload runs exactly there.

import { createHash } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type AppServer, startApp } from '../helpers/app.js';
import { eventually, tempDir } from '../helpers/server.js';
import { type Agents, download, FILE_ROOMS, fileAgents, sendFile, uploaded } from './helpers.js';

const test = suite('the collector and an upload of the same bytes');
const faults = tempDir();
const PAUSE = path.join(faults, 'collect-pause');
let s: AppServer;
let a: Agents;

test.before(async () => {
  s = await startApp({
    env: { SVC_FAULT_FILES_COLLECT_PAUSE_FILE: PAUSE },
    config: { store: { backend: 'sqlite' }, auth: { agent_registration: 'open' }, rooms: FILE_ROOMS },
  });
  a = await fileAgents(s);
});
test.after(async () => {
  rmSync(PAUSE, { force: true });
  await s?.dispose();
  rmSync(faults, { recursive: true, force: true });
});

test('an upload made while the collector removes the last file of its bytes keeps them: the download answers 200', async () => {
  const content = 'the same bytes, twice\n'.repeat(100);
  const sha = createHash('sha256').update(content).digest('hex');
  const first = await uploaded(s, content, 'first.txt', a.ann);
  const sent = await sendFile(s, a.ann, 'ann', { kind: 'room', room_id: 'pub' }, first);
  assert.is(sent.status, 200, sent.text);

  // Deleting the only message makes the first file due at once; the collector stops before the blob.
  writeFileSync(PAUSE, '');
  const del = await s.req('DELETE', `/v1/messages/${sent.body.message_id}`, { token: a.ann, body: { from: { type: 'agent', id: 'ann' } } });
  assert.is(del.status, 200, del.text);
  await eventually(() => existsSync(`${PAUSE}.reached`), 10_000, 'the collector at its pause');

  // The same bytes again, while the collector holds the count "no file names this blob".
  const id = await uploaded(s, content, 'second.txt', a.ann);
  rmSync(PAUSE);
  await eventually(() => existsSync(`${PAUSE}.passed`), 10_000, 'the collector past its blob step');

  const got = await download(s, id, a.ann);
  assert.is(got.status, 200, `the second upload is served (its blob ${sha} was kept)`);
  assert.is(got.bytes.toString(), content);
  assert.is((await download(s, first, a.ann)).status, 404, 'the first file is gone');
});

test.run();
