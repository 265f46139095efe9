// A command whose reader goes away (`svc send --help | head -2`) exits quietly: no EPIPE stack trace.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { SVC_BIN } from '../helpers/server.js';
import { cleanEnv } from '../helpers/cli.js';

const test = suite('broken pipe');

/** Runs `svc args`, destroys its stdout after the first chunk, returns its stderr and exit. */
function readFirstChunkThenHangUp(args: string[]): Promise<{ stderr: string; code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SVC_BIN, ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    p.stdout.once('data', () => p.stdout.destroy());
    p.on('exit', (code, signal) => resolve({ stderr, code, signal }));
  });
}

test('a help text written to a reader that hung up ends without a stack trace, ten times in a row', async () => {
  for (let i = 0; i < 10; i++) {
    // A long output (help of every command) so the writes outlive the reader.
    const r = await readFirstChunkThenHangUp(['send', '--help']);
    assert.not.match(r.stderr, /EPIPE|Unhandled|at .*\(node:/, r.stderr);
    assert.is(r.signal, null);
    assert.ok(r.code === 0, `exit ${r.code}`);
  }
});

test.run();
