import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { filterOf, formatComment, formatEvent, formatRetry, sseFrame } from '../../src/live/sse.js';
import type { ServiceEvent } from '../../src/protocol/types.js';

const room: ServiceEvent = {
  id: 'evt_1',
  type: 'room.created',
  network_id: 'home',
  created_at: '2026-01-01T00:00:00.000Z',
};

const t = suite('formatting an SSE frame');

t('writes id, event and data lines and a blank line', () => {
  assert.is(
    formatEvent(room),
    'id: evt_1\nevent: room.created\ndata: {"id":"evt_1","type":"room.created","network_id":"home","created_at":"2026-01-01T00:00:00.000Z"}\n\n',
  );
});

t('keeps line breaks inside message text escaped, so data stays one line', () => {
  const e: ServiceEvent = {
    ...room,
    type: 'message.created',
    message: {
      id: 'm1',
      network_id: 'home',
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: 'a', network_id: 'home', fqid: 'svc://home/agents/a' },
      parts: [{ kind: 'text', text: 'line one\nline two\r\n\ndata: forged' }],
      mentions: [],
      created_at: room.created_at,
    },
  };
  const frame = formatEvent(e);
  assert.is(frame.split('\n').length, 5, frame);
  assert.ok(frame.includes('"line one\\nline two\\r\\n\\ndata: forged"'));
  assert.ok(frame.endsWith('}\n\n'));
});

t('leaves out the id line when asked (a replay gap keeps the client cursor)', () => {
  assert.is(formatEvent(room, '{}', false), 'event: room.created\ndata: {}\n\n');
});

t('uses the JSON it is given instead of serializing again', () => {
  assert.is(formatEvent(room, '{"x":1}'), 'id: evt_1\nevent: room.created\ndata: {"x":1}\n\n');
});

t('caches the frame of one stored event for every stream', () => {
  const stored = { seq: 7, event: room };
  const a = sseFrame(stored);
  assert.is(a, formatEvent(room));
  assert.is(sseFrame(stored), a);
});

t('writes comments and the retry hint', () => {
  assert.is(formatComment('keep-alive'), ': keep-alive\n\n');
  assert.is(formatComment('two\nlines'), ': two lines\n\n');
  assert.is(formatRetry(3000), 'retry: 3000\n\n');
});

t.run();

const f = suite('reading stream filters from the query');

f('reads a room and comma-separated or repeated types', () => {
  const got = filterOf(new URLSearchParams('room_id=general&type=message.created,thread.created&type=room.created'));
  assert.is(got.room, 'general');
  assert.equal([...got.types!].sort(), ['message.created', 'room.created', 'thread.created']);
});

f('has no filter when none is given', () => {
  assert.equal(filterOf(new URLSearchParams('')), {});
});

f.run();
