// The README's first session, run command by command as written (test/helpers/first-session.ts),
// against a real server, with `svc` on the PATH as the local build. The same session from an
// installed package is test/cli/installed-package.test.ts.

import { suite } from 'uvu';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../helpers/cli.js';
import { runFirstSession } from '../helpers/first-session.js';
import { ROOT, SVC_BIN } from '../helpers/server.js';

const test = suite('README first session');

test('every command of the first session works as written, and beta answers alpha', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-readme-'));
  const bin = path.join(dir, 'bin');
  const work = path.join(dir, 'session');
  mkdirSync(bin);
  mkdirSync(work);
  writeFileSync(path.join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`);
  chmodSync(path.join(bin, 'svc'), 0o755);
  const env = cleanEnv({ PATH: `${bin}:${process.env.PATH ?? ''}` });
  try {
    const session = await runFirstSession(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), work, env);
    await session.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
