// A room whose second peer never came expires at the idle timeout even if its lone peer keeps
// sending: frames that reach nobody are not activity, so lone peers cannot fill the relay.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { createRelayServer } from '../../src/relay/server.js';

function open(url: string, room: string): Promise<{ status: number | 'open'; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url}?room=${room}`, { headers: { authorization: 'Bearer room-token-0123456789' } });
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.on('error', () => {});
    ws.on('open', () => resolve({ status: 'open', ws }));
  });
}

const test = suite('relay idle rooms');

test('three lone peers sending every 1.5 s lose their rooms at the 4 s idle timeout and a fourth client gets in', async () => {
  const relay = createRelayServer({ idleTimeoutMs: 4000, maxRooms: 3, roomsPerAddressPerMinute: 100 });
  const a = await relay.listen('127.0.0.1:0');
  const url = `ws://127.0.0.1:${a.port}/v1/relay`;
  try {
    const peers: WebSocket[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await open(url, `lone-${i}`);
      assert.is(r.status, 'open');
      peers.push(r.ws!);
    }
    assert.is((await open(url, 'lone-3')).status, 503, 'the relay is full while the three rooms live');
    const closed = peers.map((ws) => new Promise<number>((res) => ws.on('close', (code) => res(code))));
    const ticker = setInterval(() => {
      for (const ws of peers) if (ws.readyState === WebSocket.OPEN) ws.send('ping into the void');
    }, 1500);
    const started = Date.now();
    try {
      const codes = await Promise.race([
        Promise.all(closed),
        new Promise<never>((_, rej) => setTimeout(() => rej(new Error('lone rooms still open after 9 s')), 9000)),
      ]);
      assert.equal(codes, [4000, 4000, 4000]);
      assert.ok(Date.now() - started < 9000);
    } finally {
      clearInterval(ticker);
    }
    const fourth = await open(url, 'lone-3');
    assert.is(fourth.status, 'open');
    fourth.ws!.close();
  } finally {
    await relay.close();
  }
});

test.run();
