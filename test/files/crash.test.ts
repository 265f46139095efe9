// A kill -9 of a real `svc serve` during an upload (#41 part 3) leaves no file under any blob's
// name: the bytes were on their way into a spool file (.svc/files/tmp), never under a hash; the
// next start sweeps the spool; and the same upload, sent whole, is kept whole.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claimThenJoin } from '../helpers/claim.js';
import { eventually, startServer } from '../helpers/server.js';
import { download } from './helpers.js';

const BODY = randomBytes(2 * 1024 * 1024);
const HASH = createHash('sha256').update(BODY).digest('hex');

/** Every file under the blob folder, but the spool. */
function blobs(dir: string): string[] {
  const root = path.join(dir, '.svc/files');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => d !== 'tmp')
    .flatMap((d) => readdirSync(path.join(root, d)).map((f) => `${d}/${f}`));
}

/** Bytes in the spool folder. */
function spooled(dir: string): number {
  const tmp = path.join(dir, '.svc/files/tmp');
  if (!existsSync(tmp)) return 0;
  return readdirSync(tmp).reduce((n, f) => n + statSync(path.join(tmp, f)).size, 0);
}

test('a kill -9 during an upload leaves no file under its hash; the next start sweeps the spool', async () => {
  const s = await startServer({ config: { auth: { agent_registration: 'open' } } });
  try {
    const token = String((await claimThenJoin(s, 'uploader', [])).body.agent_token);
    const req = http.request(`${s.url}/v1/files?name=big.bin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-length': String(BODY.length), 'content-type': 'application/octet-stream' },
    });
    req.on('error', () => {});
    // Half the body, then nothing: the server holds a spool file with part of it.
    req.write(BODY.subarray(0, BODY.length / 2));
    await eventually(() => spooled(s.dir) > 0, 20_000, 'part of the upload spooled');
    await s.kill9();
    req.destroy();
    assert.equal(blobs(s.dir), [], 'no file under any blob name');
    assert.ok(spooled(s.dir) > 0, 'the cut upload is only in the spool');

    await s.restart();
    await eventually(() => spooled(s.dir) === 0, 20_000, 'the spool swept at start');
    const r = await s.req('POST', '/v1/files?name=big.bin', { token, raw: BODY });
    assert.is(r.status, 201, r.text);
    assert.is(r.body.sha256, HASH);
    assert.equal(blobs(s.dir), [`${HASH.slice(0, 2)}/${HASH}`]);
    assert.ok((await download(s, r.body.file_id, token)).bytes.equals(BODY));
  } finally {
    await s.dispose();
  }
});

test.run();
