// Pure parts of the attachment client: which cursor to acknowledge, the preflight, wakes, session keys.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AckLedger } from '../../src/client/attach-acks.js';
import { preflightProblem } from '../../src/client/attach-preflight.js';
import { conversationOf, sessionKeyOf, wakeReasonOf } from '../../src/client/attach-wake.js';
import type { NetworkDocument, ServiceEvent } from '../../src/protocol/types.js';

const acks = suite('the acknowledged cursor');

acks('starts at READY.cursor and moves only over a prefix of finished events', () => {
  const l = new AckLedger();
  l.startSession(10);
  assert.is(l.base, 10);
  assert.is(l.arrive(12), 'new');
  assert.is(l.arrive(15), 'new');
  assert.is(l.arrive(20), 'new');
  assert.is(l.finish(15), undefined, 'a later event finishing first moves nothing');
  assert.is(l.ackToSend(), undefined);
  assert.is(l.finish(12), 15, 'then both are covered');
  assert.is(l.ackToSend(), 15);
  assert.is(l.ackToSend(), undefined, 'never the same ACK twice');
  assert.is(l.inHand, 1);
});

acks('recognises re-sent events after a reconnect and never acknowledges beyond what the session delivered', () => {
  const l = new AckLedger(10);
  l.startSession(10);
  l.arrive(11);
  l.arrive(12);
  l.finish(12);
  // reconnect: the server resends from 10
  l.startSession(10);
  assert.is(l.finish(11), 12);
  assert.is(l.ackToSend(), undefined, 'the new session has delivered nothing yet');
  assert.is(l.arrive(11), 'processed');
  assert.is(l.ackToSend(), 11);
  assert.is(l.arrive(12), 'processed');
  assert.is(l.ackToSend(), 12);
});

acks('an event in hand is not handed out twice, and a forgotten one is new again', () => {
  const l = new AckLedger(5);
  l.startSession(5);
  l.arrive(6);
  l.startSession(5);
  assert.is(l.arrive(6), 'in_hand');
  l.forget(6);
  assert.is(l.arrive(6), 'new');
});

acks('acknowledges no further than the stored cursor', () => {
  const l = new AckLedger();
  l.startSession(3);
  l.arrive(4);
  l.finish(4);
  assert.is(l.ackToSend(3), undefined);
  assert.is(l.ackToSend(4), 4);
});

acks('follows the server when its store is behind ours (it was reset)', () => {
  const l = new AckLedger(500);
  l.startSession(7);
  assert.is(l.base, 7);
  assert.is(l.arrive(8), 'new');
});

acks.run();

const pre = suite('the preflight');
const doc = (o: Record<string, unknown> = {}): Partial<NetworkDocument> =>
  ({
    id: 'home',
    protocols: { http: ['service.http.v1'], attach: ['service.attach.v1'], pair: ['service.pair.v1'] },
    capabilities: { attachment_protocol: 'websocket', direct_messages: true },
    ...o,
  }) as Partial<NetworkDocument>;

pre('passes a compatible server', () => {
  assert.is(preflightProblem(doc(), { networkId: 'home', dms: true }), undefined);
  assert.is(preflightProblem(doc(), { dms: false }), undefined);
});

pre('refuses another network, another protocol, and DMs that are off', () => {
  assert.equal(preflightProblem(doc(), { networkId: 'lab', dms: false }), {
    code: 'network_mismatch',
    message: 'the server hosts network home, not lab',
  });
  assert.is(
    preflightProblem(doc({ protocols: { http: ['service.http.v2'], attach: ['service.attach.v1'] } }), { dms: false })?.code,
    'unsupported_protocol',
  );
  assert.is(
    preflightProblem(doc({ protocols: { http: ['service.http.v1'], attach: ['service.attach.v2'] }, capabilities: {} }), { dms: false })
      ?.code,
    'unsupported_protocol',
  );
  assert.is(
    preflightProblem(doc({ capabilities: { attachment_protocol: 'websocket', direct_messages: false } }), { dms: true })?.code,
    'dms_disabled',
  );
});

pre('accepts the legacy rule: no protocols, attachment_protocol websocket', () => {
  assert.is(preflightProblem(doc({ protocols: undefined }), { dms: false }), undefined);
});

pre.run();

const wakes = suite('wakes and session keys');
const me = { network_id: 'home', id: 'alpha' };
const msg = (o: Record<string, unknown>): ServiceEvent =>
  ({
    id: 'e1',
    type: 'message.created',
    network_id: 'home',
    created_at: '',
    message: {
      id: 'm1',
      network_id: 'home',
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: 'beta', network_id: 'home', fqid: '' },
      parts: [],
      mentions: [],
      created_at: '',
      ...o,
    },
  }) as ServiceEvent;

wakes('a mention and a DM wake; plain traffic and the agent itself do not', () => {
  assert.is(wakeReasonOf(msg({ mentions: ['svc://home/agents/alpha'] }), me), 'mention');
  assert.is(wakeReasonOf(msg({ target: { kind: 'dm', dm_id: 'dm_1', participant_ids: ['home:alpha', 'home:beta'] } }), me), 'dm');
  assert.is(wakeReasonOf(msg({}), me), undefined);
  assert.is(
    wakeReasonOf(msg({ mentions: ['svc://home/agents/alpha'], from: { type: 'agent', id: 'alpha', network_id: 'home', fqid: '' } }), me),
    undefined,
  );
  assert.is(wakeReasonOf(msg({ mentions: ['svc://other/agents/alpha'] }), me), undefined);
});

wakes('an edit wakes only an agent it newly mentions (mentions_added), never a DM participant again', () => {
  const edited = (fields: Partial<ServiceEvent>): ServiceEvent => ({
    ...msg({ mentions: ['svc://home/agents/alpha'] }),
    type: 'message.edited',
    ...fields,
  });
  assert.is(wakeReasonOf(edited({ mentions_added: ['svc://home/agents/alpha'] }), me), 'mention');
  assert.is(wakeReasonOf(edited({ mentions_added: [] }), me), undefined);
  const dm = msg({ target: { kind: 'dm', dm_id: 'dm_1', participant_ids: ['home:alpha', 'home:beta'] } });
  assert.is(wakeReasonOf({ ...dm, type: 'message.edited', mentions_added: [] }, me), undefined);
  assert.is(wakeReasonOf({ ...dm, type: 'message.deleted' }, me), undefined);
});

wakes('session keys follow SPEC: room, thread, dm', () => {
  assert.is(sessionKeyOf('home', { kind: 'room', room_id: 'general' }), 'service:home:room:general');
  assert.is(sessionKeyOf('home', { kind: 'thread', room_id: 'general', thread_id: 't1' }), 'service:home:thread:t1');
  assert.is(sessionKeyOf('home', { kind: 'dm', dm_id: 'dm_x', participant_ids: [] }), 'service:home:dm:dm_x');
  assert.is(conversationOf({ kind: 'dm', dm_id: 'dm_x', participant_ids: [] }), 'dm:dm_x');
});

wakes.run();
