// Export and import carry files (#41 part 8): `svc export --with-files` writes the bytes of every
// file the messages reference (`file_blob` lines before the end line), `svc import` puts them into
// the new store's blob store, and the file downloads from the imported network to the same readers.
// Without --with-files the records come along and the bytes do not. The servers run in the test
// process; the CLI finds them by their runtime files.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { tempDir, testConfig, TOKENS, writeConfig } from '../helpers/server.js';
import { download, FILE_ROOMS, fileAgents, refusal, sendFile, uploaded } from './helpers.js';

const CONFIG = { auth: { agent_registration: 'open' }, rooms: FILE_ROOMS };
const ADMIN = TOKENS.admin.value;
const MISSING = 'file_00000000000000000000000000';

test('svc export --with-files and svc import bring a network back with its files', async () => {
  const source = await startApp({ config: CONFIG });
  try {
    const a = await fileAgents(source);
    // Two blob pieces: more than one line of bytes.
    const big = Buffer.alloc(1024 * 1024, 3);
    const id = await uploaded(source, big, 'big.bin', a.bob);
    const small = await uploaded(source, 'in the private room', 'p.txt', a.bob, 'text/plain');
    const draft = await uploaded(source, 'never sent', 'draft.txt', a.bob);
    assert.is((await sendFile(source, a.bob, 'bob', { kind: 'room', room_id: 'pub' }, id)).status, 200);
    assert.is((await sendFile(source, a.bob, 'bob', { kind: 'room', room_id: 'priv' }, small)).status, 200);

    const work = tempDir();
    const withFiles = path.join(work, 'with.jsonl');
    const plain = path.join(work, 'plain.jsonl');
    // With secrets: the agent tokens keep working after the import.
    const e1 = await cli(['export', '--with-files', '--with-secrets', '-o', withFiles, '--config', source.configFile], {
      env: { SVC_TOKEN: ADMIN },
    });
    assert.is(e1.code, 0, e1.stderr);
    assert.match(e1.stdout, /with files/);
    const e2 = await cli(['export', '--with-secrets', '-o', plain, '--config', source.configFile], { env: { SVC_TOKEN: ADMIN } });
    assert.is(e2.code, 0, e2.stderr);
    const lines = readFileSync(withFiles, 'utf8').trim().split('\n');
    const blobLines = lines.filter((l) => l.startsWith('{"type":"file_blob"'));
    assert.is(blobLines.length, 3, 'two pieces of the big file, one of the small; none of the draft');
    assert.equal(JSON.parse(lines.at(-1)!).counts.file_blob, 3);
    assert.is(readFileSync(plain, 'utf8').includes('"file_blob"'), false);
    await source.stop();

    for (const [file, bytes] of [
      [withFiles, true],
      [plain, false],
    ] as const) {
      const dir = tempDir();
      const config = writeConfig(dir, testConfig(CONFIG));
      const imported = await cli(['import', file, '--config', config]);
      assert.is(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, bytes ? /, 2 files in / : /, 0 files in /);
      const s = await startApp({ dir, keepConfig: true });
      try {
        const got = await download(s, id, a.cal);
        if (bytes) {
          assert.is(got.status, 200);
          assert.ok(got.bytes.equals(big));
          assert.is(got.headers.get('etag'), `"${createHash('sha256').update(big).digest('hex')}"`);
          assert.is((await download(s, small, a.bob)).bytes.toString(), 'in the private room');
          assert.equal(await refusal(s, small, a.cal), await refusal(s, MISSING, a.cal), 'the access rule holds after the import');
        } else assert.is(got.status, 404, 'the record without its bytes');
        assert.equal(await refusal(s, draft, a.bob), await refusal(s, MISSING, a.bob), 'an upload no message referenced is not carried');
      } finally {
        await s.dispose();
      }
    }
  } finally {
    await source.dispose();
  }
});

test.run();
