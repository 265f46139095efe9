// `svc mcp` answers input it cannot read with a JSON-RPC error (id null) and goes on serving.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanEnv, deadUrl } from '../helpers/cli.js';
import { SVC_BIN, type Json } from '../helpers/server.js';

const test = suite('svc mcp malformed input');

test('a line that is not JSON gets -32700, JSON that is not a request gets -32600, a deep line gets an error, and the next request is answered', async () => {
  const url = await deadUrl();
  const stateDir = mkdtempSync(path.join(tmpdir(), 'svc-mcp-bad-'));
  const p = spawn(process.execPath, [SVC_BIN, 'mcp', '--url', url, '--agent', 'beta', '--state-dir', stateDir], {
    env: cleanEnv({ SVC_TOKEN: 'tok-beta-0123456789' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  p.stderr.resume();
  const replies: Json[] = [];
  let buf = '';
  p.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      replies.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  });
  const next = async (): Promise<Json> => {
    const t0 = Date.now();
    while (replies.length === 0) {
      if (Date.now() - t0 > 10_000) throw new Error('no reply from svc mcp in 10 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    return replies.shift();
  };
  try {
    p.stdin.write('this is not json\n');
    const a = await next();
    assert.equal([a.id, a.error?.code], [null, -32700]);
    p.stdin.write('{"hello":"world"}\n');
    const b = await next();
    assert.equal([b.id, b.error?.code], [null, -32600]);
    p.stdin.write(`${'['.repeat(200_000) + ']'.repeat(200_000)}\n`);
    const c = await next();
    assert.is(c.id, null);
    assert.ok(c.error?.code === -32600 || c.error?.code === -32700, JSON.stringify(c));
    p.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      })}\n`,
    );
    const d = await next();
    assert.is(d.id, 7);
    assert.ok(d.result?.serverInfo, JSON.stringify(d));
  } finally {
    p.kill();
    if (p.exitCode === null && p.signalCode === null) await new Promise((r) => p.once('exit', r));
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test.run();
