// A paired network that cannot be reached answers 502 in words ("the paired network refused the
// connection"), never with raw error strings such as ECONNREFUSED or the peer's address; the raw
// cause goes to the server log. The same words reach the pairing's diagnostics.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { describeNetworkError } from '../../src/pairing/transport.js';
import { eventually, startServer, TOKENS, type TestServer } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
const RAW = /ECONN|ENOTFOUND|EAI_|UND_ERR|127\.0\.0\.1|no-such-host|:\d{2,5}\b/;

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const words = suite('network error codes in words');

words('name what failed without the code', () => {
  assert.is(describeNetworkError('ECONNREFUSED'), 'the paired network refused the connection');
  assert.is(describeNetworkError('UND_ERR_CONNECT_TIMEOUT'), 'the paired network did not answer in time');
  assert.is(describeNetworkError('ENOTFOUND'), "the paired network's host name could not be resolved");
  assert.is(describeNetworkError('ECONNRESET', 'the relay'), 'the connection to the relay was cut');
  assert.is(describeNetworkError('EHOSTUNREACH'), 'the paired network is unreachable from this machine (no network route)');
  assert.is(describeNetworkError('DEPTH_ZERO_SELF_SIGNED_CERT'), "the paired network's TLS certificate was not accepted");
  assert.is(describeNetworkError('E_SOMETHING_NEW'), 'the paired network could not be reached');
});

words.run();

const proxy = suite<{ s: TestServer; port: number }>('proxied reads of an unreachable paired network');
proxy.before(async (ctx) => {
  ctx.port = await closedPort();
  const relayPort = await closedPort();
  // The memory store: nothing here restarts the server or reads its files.
  ctx.s = await startServer({
    config: {
      store: { backend: 'memory' },
      pairings: [
        {
          id: 'down',
          remote_network_id: 'away',
          remote_base_url: `http://127.0.0.1:${ctx.port}`,
          token: 'tok-down-0123456789',
          bound: true,
        },
        {
          id: 'nowhere',
          remote_network_id: 'far',
          remote_base_url: 'http://no-such-host.invalid:8787',
          token: 'tok-nowhere-0123456789',
          bound: true,
        },
        {
          id: 'relayed',
          remote_network_id: 'other',
          token: 'tok-relayed-0123456789',
          bound: true,
          relay: { url: `ws://127.0.0.1:${relayPort}`, room: 'room-0123456789' },
        },
      ],
    },
  });
});
proxy.after(async (ctx) => ctx.s.dispose());

proxy('a refused connection is a 502 saying so, with no error code or address', async ({ s, port }) => {
  for (const path of ['network', 'rooms', 'agents']) {
    const r = await s.get(`/v1/pairings/down/${path}`, ADMIN);
    assert.is(r.status, 502, r.text);
    assert.is(r.body.code, 'bad_gateway');
    assert.match(r.body.error, /^pairing down: the paired network refused the connection$/);
    assert.not.match(r.text, RAW);
  }
  // The operator finds the raw cause in the log.
  await eventually(
    () => /pairing request failed.*ECONNREFUSED|ECONNREFUSED.*pairing request failed/.test(s.output()),
    5000,
    'the raw code in the log',
  );
  assert.match(s.output(), new RegExp(`127\\.0\\.0\\.1:${port}`));
});

proxy('a host name that does not resolve is a 502 saying so', async ({ s }) => {
  const r = await s.get('/v1/pairings/nowhere/network', ADMIN);
  assert.is(r.status, 502, r.text);
  assert.match(r.body.error, /could not be resolved|could not be reached|did not answer in time/);
  assert.not.match(r.text, RAW);
});

proxy('a relay that refuses the connection is a 502 in words', async ({ s }) => {
  const r = await s.get('/v1/pairings/relayed/network', ADMIN);
  assert.is(r.status, 502, r.text);
  assert.match(r.body.error, /^pairing relayed: not connected to the relay(: the relay refused the connection)?$/);
  assert.not.match(r.text, RAW);
});

proxy('the pairing list shows the same words in its diagnostics', async ({ s }) => {
  const list = await s.get('/v1/pairings', ADMIN);
  assert.is(list.status, 200, list.text);
  const down = list.body.pairings.find((p: { id: string }) => p.id === 'down');
  assert.is(down.diagnostics.message, 'the paired network refused the connection');
  for (const p of list.body.pairings) assert.not.match(JSON.stringify(p.diagnostics ?? {}), /ECONN|ENOTFOUND|EAI_|UND_ERR/);
});

proxy.run();
