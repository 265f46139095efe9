// Memory and Postgres servers spool uploads into a folder of their own in the temporary folder,
// named by their pid; a kill -9 leaves it behind, with what it held. The next server to open its
// blobs removes the folders of processes that are gone, and leaves a running process's alone.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Config } from '../../src/config/types.js';
import { openBlobs } from '../../src/files/open-blobs.js';

test("opening blobs removes the spool folders of processes that are gone, and no running process's", async () => {
  const gone = spawnSync('true').pid;
  assert.ok(gone > 0);
  const left = path.join(os.tmpdir(), `svc-uploads-${gone}-left`);
  const mine = path.join(os.tmpdir(), `svc-uploads-${process.pid}-mine`);
  for (const dir of [left, mine]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'part'), 'half an upload');
  }
  try {
    const blobs = await openBlobs({ backend: 'memory' } as Config['store']);
    assert.not.ok(existsSync(left), 'the folder of a process that is gone');
    assert.ok(existsSync(mine), 'the folder of a running process');
    assert.match(path.basename(blobs.spoolDir), new RegExp(`^svc-uploads-${process.pid}-`));
    await blobs.close();
    assert.not.ok(existsSync(blobs.spoolDir), 'a closed store removes its own');
  } finally {
    rmSync(mine, { recursive: true, force: true });
    rmSync(left, { recursive: true, force: true });
  }
});

test.run();
