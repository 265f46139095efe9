// A request refused before its body was read (401 for a bad token) still gets its answer: the
// server drains the upload (up to a bound) before answering, so the client never sees the
// connection close under an unfinished upload.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { startApp, type AppServer } from '../helpers/app.js';

const test = suite<{ s: AppServer }>('early refusal');
test.before(async (ctx) => {
  ctx.s = await startApp();
});
test.after(async (ctx) => ctx.s.dispose());

function post(port: number, body: Buffer, method = 'POST'): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: '/v1/messages',
        agent: false,
        headers: { authorization: 'Bearer wrong-token-0123456789', 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (err) => resolve(`error: ${err.message}`));
    // Written in slices so the upload is still going when the server decides.
    let off = 0;
    const pump = (): void => {
      while (off < body.length) {
        const ok = req.write(body.subarray(off, off + 16_384));
        off += 16_384;
        if (!ok) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

test('a 600 KB body with a bad token gets its 401 fifty times in a row', async ({ s }) => {
  const body = Buffer.from(JSON.stringify({ text: 'x'.repeat(600_000) }));
  const got: (number | string)[] = [];
  for (let i = 0; i < 50; i++) got.push(await post(s.port, body));
  assert.ok(
    got.every((g) => g === 401),
    got.filter((g) => g !== 401).join(', '),
  );
});

test.run();
