// A full disk during an upload (#41 part 1) answers 507 insufficient_storage and keeps nothing of
// it: no blob, no spool file, no record. The disk is made full by the test hook of
// src/files/faults.ts (a size-limited filesystem cannot be mounted here). A full disk under the
// database instead (the store's hook, SVC_FAULT_JOURNAL_ENOSPC_FILE) fails the upload's record
// after its bytes were spooled: the spool file goes too. The app runs in the test process: the
// files hook's variable is read when its modules first load (the first test's app), the store's
// when a store opens.

import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claimThenJoin } from '../helpers/claim.js';
import { startApp } from '../helpers/app.js';

test('an upload that meets a full disk answers 507 and leaves nothing half-written', async () => {
  const fault = path.join(os.tmpdir(), `svc-test-enospc-${process.pid}`);
  const s = await startApp({ config: { auth: { agent_registration: 'open' } }, env: { SVC_FAULT_FILES_ENOSPC_FILE: fault } });
  try {
    const token = String((await claimThenJoin(s, 'uploader', [])).body.agent_token);
    writeFileSync(fault, '');
    const r = await s.req('POST', '/v1/files?name=big.bin', { token, raw: Buffer.alloc(300 * 1024, 7) });
    assert.is(r.status, 507, r.text);
    assert.is(r.body.code, 'insufficient_storage');
    const root = path.join(s.dir, '.svc/files');
    const left = existsSync(root) ? readdirSync(root, { recursive: true }).filter((f) => !String(f).match(/^tmp$/)) : [];
    assert.equal(left, [], 'no blob and no spool file');
    rmSync(fault);
    const ok = await s.req('POST', '/v1/files?name=big.bin', { token, raw: Buffer.alloc(300 * 1024, 7) });
    assert.is(ok.status, 201, 'with room again, the same upload is kept');
  } finally {
    rmSync(fault, { force: true });
    await s.dispose();
  }
});

test("an upload whose record cannot be stored (the database's disk is full) keeps no spool file", async () => {
  const fault = path.join(os.tmpdir(), `svc-test-journal-enospc-${process.pid}`);
  const s = await startApp({ config: { auth: { agent_registration: 'open' } }, env: { SVC_FAULT_JOURNAL_ENOSPC_FILE: fault } });
  try {
    const token = String((await claimThenJoin(s, 'uploader', [])).body.agent_token);
    writeFileSync(fault, '');
    const r = await s.req('POST', '/v1/files?name=big.bin', { token, raw: Buffer.alloc(300 * 1024, 9) });
    assert.ok(r.status >= 500, r.text);
    const root = path.join(s.dir, '.svc/files');
    const left = existsSync(root) ? readdirSync(root, { recursive: true }).filter((f) => !String(f).match(/^tmp$/)) : [];
    assert.equal(left, [], 'no blob and no spool file');
  } finally {
    rmSync(fault, { force: true });
    await s.dispose();
  }
});

test.run();
