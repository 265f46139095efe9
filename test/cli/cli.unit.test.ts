// The CLI's pure parts with exact values: tables, error lines, URL resolution, the apply plan,
// tail's filters and lines, doctor's compatibility and pairing verdicts.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Chalk } from 'chalk';
import { responseError, transportError } from '../../src/client/errors.js';
import { table, keyValues, oneLine } from '../../src/cli/format.js';
import { urlOfListenAddr, resolveTarget, UsageError } from '../../src/cli/target.js';
import { planApply } from '../../src/cli/commands/apply/run.js';
import { describeEvent, matches } from '../../src/cli/commands/tail/run.js';
import { compatibilityChecks, pairingChecks } from '../../src/cli/commands/doctor/run.js';
import { splitList } from '../../src/cli/options.js';
import type { NetworkDocument, Room, ServiceEvent } from '../../src/protocol/types.js';

const plain = new Chalk({ level: 0 });
const ctx = { method: 'GET', path: '/v1/rooms/x', baseUrl: 'http://127.0.0.1:8787', hasToken: false };

const f = suite('human output');
f('a table pads every column but the last to its widest cell', () => {
  const rows = [
    { a: 'general', b: 'x' },
    { a: 'ops', b: 'longer value' },
  ];
  assert.equal(
    table(plain, rows, [
      { header: 'ID', value: (r) => r.a },
      { header: 'V', value: (r) => r.b },
    ]),
    ['ID       V', 'general  x', 'ops      longer value'],
  );
});
f('colour is applied after padding, so coloured columns stay aligned', () => {
  const c = new Chalk({ level: 1 });
  const [, row] = table(
    c,
    [{ a: 'x' }],
    [
      { header: 'LONG', value: (r) => r.a, style: (s) => c.red(s) },
      { header: 'B', value: () => 'y' },
    ],
  );
  assert.is(row, `${c.red('x   ')}  y`);
});
f('cells never carry control characters to the terminal', () => {
  assert.is(oneLine('a\nb\x1b[2Jc'), 'a ⏎ b?[2Jc');
  assert.equal(
    keyValues(plain, [
      ['id', 'x'],
      ['skipped', undefined],
      ['members', 'a, b'],
    ]),
    ['id       x', 'members  a, b'],
  );
});
f('repeatable flags also split on commas', () => {
  assert.equal(splitList(['a,b', ' c ', '', 'd,']), ['a', 'b', 'c', 'd']);
});
f.run();

const e = suite('client error lines');
e('a 401 without a token says to pass --token or SVC_TOKEN', () => {
  const err = responseError(401, JSON.stringify({ error: 'needs a token', code: 'unauthorized' }), ctx);
  assert.is(err.message, '401 unauthorized: needs a token; this needs a token: pass --token or set SVC_TOKEN');
  assert.is(err.status, 401);
  assert.is(err.code, 'unauthorized');
});
e('a 404 on a room names the list command; a 5xx carries the request id', () => {
  assert.is(
    responseError(404, JSON.stringify({ error: 'room x not found', code: 'not_found' }), ctx).message,
    '404 not_found: room x not found; check the id (svc rooms list)',
  );
  const err = responseError(500, JSON.stringify({ error: 'internal error', code: 'internal_error', request_id: 'req_1' }), ctx);
  assert.is(err.message, "500 internal_error: internal error (request req_1); see the server's log for this request");
});
e('an answer that is not an svc envelope says the URL may be wrong', () => {
  assert.match(
    responseError(502, '<html>bad gateway</html>', ctx).message,
    /HTTP 502 with a body that is not an svc error: is http:\/\/127\.0\.0\.1:8787 an svc server\?/,
  );
});
e('a refused connection says no server runs there and how to start one', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  assert.is(
    transportError(refused, { ...ctx, start: 'svc serve --config /x/svc.yaml' }).message,
    'no svc server is running at http://127.0.0.1:8787 (connection refused); start it with `svc serve --config /x/svc.yaml`, or point --url / SVC_URL at a running server',
  );
  assert.is(transportError(refused, ctx).code, 'unreachable');
});
e.run();

const u = suite('where a client command connects');
u('wildcard binds become loopback; IPv6 gets brackets', () => {
  assert.is(urlOfListenAddr('127.0.0.1:8787'), 'http://127.0.0.1:8787');
  assert.is(urlOfListenAddr('0.0.0.0:9000'), 'http://127.0.0.1:9000');
  assert.is(urlOfListenAddr(':9000'), 'http://127.0.0.1:9000');
  assert.is(urlOfListenAddr('[::]:9000'), 'http://[::1]:9000');
  assert.throws(
    () => urlOfListenAddr('127.0.0.1:0'),
    (err: Error) => err instanceof UsageError && /pass --url/.test(err.message),
  );
});
u('--url beats SVC_URL, which beats the config; a bad URL is a usage error', () => {
  assert.is(resolveTarget({ url: 'http://a:1/' }, { SVC_URL: 'http://b:2' }).url, 'http://a:1');
  assert.is(resolveTarget({ config: '/nonexistent/ignored.yaml' }, { SVC_URL: 'http://b:2' }).url, 'http://b:2');
  assert.throws(
    () => resolveTarget({ url: 'ftp://x' }, {}),
    (err: Error) => err instanceof UsageError,
  );
  assert.is(resolveTarget({ token: 't' }, { SVC_TOKEN: 'env' }).token, 't');
  assert.is(resolveTarget({}, { SVC_TOKEN: 'env', SVC_URL: 'http://x:1' }).token, 'env');
});
u.run();

const room = (over: Partial<Room>): Room => ({
  id: 'r',
  network_id: 'n',
  fqid: 'svc://n/rooms/r',
  name: 'R',
  members: [],
  visibility: 'public',
  write_policy: 'members',
  created_at: '',
  ...over,
});

const a = suite('the apply plan');
a('mirrors the server: new ids are created, differences are updates with details, the rest unchanged', () => {
  const plan = planApply(
    {
      network_id: 'n',
      agents: [
        { id: 'alpha', credential_key: 'token:a' },
        { id: 'new', credential_key: 'token:a' },
      ],
      rooms: [
        { id: 'same', name: 'Same', members: ['alpha'] },
        { id: 'diff', members: ['n:alpha', 'other:beta'], write_policy: 'operators' },
        { id: 'fresh' },
      ],
    },
    [room({ id: 'same', name: 'Same', members: ['alpha'] }), room({ id: 'diff', members: ['gamma'] })],
    [{ id: 'alpha', actor_uid: 'x', fqid: 'svc://n/agents/alpha', network_id: 'n', rooms: [] }],
  );
  assert.equal(plan, [
    { kind: 'agent', id: 'alpha', action: 'unchanged' },
    { kind: 'agent', id: 'new', action: 'created' },
    { kind: 'room', id: 'same', action: 'unchanged' },
    { kind: 'room', id: 'diff', action: 'updated', details: ['members +alpha +other:beta -gamma', 'write_policy members -> operators'] },
    { kind: 'room', id: 'fresh', action: 'created' },
  ]);
});
a('a reordered member list is an update, as the server counts it', () => {
  const plan = planApply({ network_id: 'n', agents: [], rooms: [{ id: 'r', members: ['b', 'a'] }] }, [room({ members: ['a', 'b'] })], []);
  assert.equal(plan, [{ kind: 'room', id: 'r', action: 'updated', details: ['members reordered'] }]);
});
a.run();

const msg = (room_id: string, text: string): ServiceEvent => ({
  id: 'evt_1',
  type: 'message.created',
  network_id: 'n',
  created_at: '2025-01-02T03:04:05.000Z',
  message: {
    id: 'm1',
    network_id: 'n',
    target: { kind: 'room', room_id },
    from: { type: 'agent', id: 'alpha', network_id: 'n', fqid: '' },
    parts: [
      { kind: 'text', text },
      { kind: 'file', filename: 'a.txt' },
    ],
    mentions: [],
    created_at: '',
  },
});

const tl = suite('tail filters and lines');
tl('--room matches the room of messages, threads and room events; --type takes exact names and prefixes', () => {
  const e = msg('general', 'hi');
  assert.ok(matches(e, { rooms: [], types: [] }));
  assert.ok(matches(e, { rooms: ['general'], types: ['message.*'] }));
  assert.not.ok(matches(e, { rooms: ['ops'], types: [] }));
  assert.not.ok(matches(e, { rooms: [], types: ['room.created'] }));
  const removed: ServiceEvent = { id: 'e2', type: 'room.removed', network_id: 'n', created_at: '', room_id: 'ops' };
  assert.ok(matches(removed, { rooms: ['ops'], types: ['room.removed'] }));
  const gap: ServiceEvent = { id: 'g', type: 'stream.replay_gap', network_id: 'n', created_at: '' };
  assert.ok(matches(gap, { rooms: ['ops'], types: ['message.created'] }), 'a gap always shows');
});
tl('a message line shows where, who and what, with non-text parts named', () => {
  assert.is(describeEvent(msg('general', 'hello')), '#general alpha: hello [file a.txt]');
  assert.is(
    describeEvent({ id: 'x', type: 'room.members.updated', network_id: 'n', created_at: '', room_id: 'g', added: ['a'], removed: ['b'] }),
    '#g +a -b',
  );
});
tl.run();

const doc = (over: Partial<NetworkDocument> = {}): NetworkDocument => ({
  id: 'n',
  name: 'N',
  version: '0',
  protocols: { http: ['service.http.v1'], attach: ['service.attach.v1'], pair: ['service.pair.v1'] },
  capabilities: {
    event_stream: 'sse',
    attachment_protocol: 'websocket',
    human_ingress: true,
    direct_messages: true,
    message_pagination: 'cursor',
    pairings: true,
  },
  console: { can_send_human: false },
  warnings: [],
  ...over,
});

const d = suite('doctor verdicts');
d('matching protocols pass; an explicit older pair protocol fails; an empty one is a legacy warning', () => {
  assert.equal(
    compatibilityChecks(doc()).map((c) => c.status),
    ['ok', 'ok'],
  );
  const old = compatibilityChecks(
    doc({ protocols: { http: ['service.http.v1'], attach: ['service.attach.v1'], pair: ['service.pair.v0'] } }),
  );
  assert.is(old[0]!.status, 'fail');
  assert.match(old[0]!.message, /protocols\.pair lacks service\.pair\.v1/);
  const legacy = compatibilityChecks(doc({ protocols: { http: ['service.http.v1'], attach: ['service.attach.v1'], pair: [] } }));
  assert.is(legacy[0]!.status, 'warn');
});
d('pairing statuses map to marks; pairings the server does not report are informational', () => {
  const served = [
    { id: 'a', remote_network_id: 'x', remote_network_name: '', remote_base_url: '', status: 'connected' as const },
    {
      id: 'b',
      remote_network_id: 'y',
      remote_network_name: '',
      remote_base_url: '',
      status: 'incompatible' as const,
      diagnostics: { reason: 'unsupported_pair_protocol' },
    },
  ];
  const out = pairingChecks(
    [
      { id: 'a', remote_network_id: 'x' },
      { id: 'c', remote_network_id: 'z' },
    ],
    served,
  );
  assert.equal(
    out.map((c) => [c.check, c.status]),
    [
      ['pairing a', 'ok'],
      ['pairing c', 'info'],
      ['pairing b', 'fail'],
    ],
  );
  assert.match(out[2]!.message, /incompatible \(unsupported_pair_protocol\)/);
  assert.equal(pairingChecks([], undefined), [{ check: 'pairings', status: 'ok', message: 'none configured' }]);
});
d('a pairing whose peer has answered is never called an invite out, even when its id is not reported', () => {
  const p = (status: 'connected' | 'error' | 'pending') => ({
    id: 'p',
    remote_network_id: '',
    remote_network_name: '',
    remote_base_url: '',
    status,
  });
  assert.is(pairingChecks([{ id: 'p' }], [p('connected')])[0]!.message, 'to the paired network (its id not reported): connected');
  assert.match(pairingChecks([{ id: 'p' }], [p('error')])[0]!.message, /^to the paired network \(its id not reported\): error/);
  assert.match(pairingChecks([{ id: 'p' }], [p('pending')])[0]!.message, /^to a network not yet known \(invite out\): pending/);
});
d.run();
