// Backup and restore carry uploaded files (#41 part 8): `POST /v1/backup` copies the blob folder
// (.svc/files/) into `files/` of the backup, and `svc restore` brings it back beside the restored
// database, so a file sent before the backup downloads from the restored server.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { startServer, tempDir, testConfig, TOKENS, writeConfig } from '../helpers/server.js';
import { download, FILE_ROOMS, fileAgents, sendFile, uploaded } from './helpers.js';

const CONFIG = { auth: { agent_registration: 'open' }, rooms: FILE_ROOMS };

test('a backup holds the uploaded files and a restore brings them back', async () => {
  const source = await startServer({ config: CONFIG });
  const fresh = tempDir();
  const file = writeConfig(fresh, testConfig(CONFIG));
  try {
    const a = await fileAgents(source);
    const content = 'kept through a backup';
    const hash = createHash('sha256').update(content).digest('hex');
    const id = await uploaded(source, content, 'kept.txt', a.ann, 'text/plain');
    assert.is((await sendFile(source, a.ann, 'ann', { kind: 'room', room_id: 'pub' }, id)).status, 200);
    const dir = path.join(tempDir(), 'backup');
    const r = await source.post('/v1/backup', { dir }, TOKENS.admin.value);
    assert.is(r.status, 200, r.text);
    assert.is(r.body.files_copied, 1);
    assert.ok(existsSync(path.join(dir, 'files', hash.slice(0, 2), hash)), 'the blob is in the backup');
    assert.is(await source.stop(), 0);

    const restored = await cli(['restore', dir, '--config', file]);
    assert.is(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /1 uploaded files/);
    const s = await startServer({ dir: fresh, keepConfig: true });
    try {
      const got = await download(s, id, a.cal);
      assert.is(got.status, 200);
      assert.is(got.bytes.toString(), content);
    } finally {
      await s.stop();
    }
  } finally {
    await source.dispose();
  }
});

test.run();
