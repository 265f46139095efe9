import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LoopGuard, loopSettingsFor, type LoopSettings } from '../../src/loop-guard/detector.js';

const S: LoopSettings = { enabled: true, max_consecutive: 3, pause_ms: 1000 };
const A = { type: 'agent', id: 'net:a' };
const B = { type: 'agent', id: 'net:b' };
const C = { type: 'agent', id: 'net:c' };
const H = { type: 'human', id: 'net:h' };

/** Checks then records, like sendMessage; returns whether it was accepted. */
function send(g: LoopGuard, who: typeof A, at: number, s = S, conv = 'room:r'): boolean {
  const d = g.check(conv, who, at, s);
  if (d.allow) g.record(conv, who, at, s);
  return d.allow;
}

const t = suite('the loop detector');

t('refuses the message that would make a two-agent exchange exceed max_consecutive', () => {
  const g = new LoopGuard();
  assert.equal(
    [A, B, A].map((w, i) => send(g, w, i)),
    [true, true, true],
  );
  const d = g.check('room:r', B, 3, S);
  assert.equal(d, { allow: false, turns: 3, speakers: ['net:a', 'net:b'], retryAfterMs: 1000 - 3 + 2 + 1, tripped: true });
});

t('reports the trip once and then refuses every agent of the run, the last speaker too', () => {
  const g = new LoopGuard();
  [A, B, A].forEach((w, i) => send(g, w, i));
  assert.is((g.check('room:r', B, 3, S) as { tripped: boolean }).tripped, true);
  const again = g.check('room:r', A, 4, S);
  assert.equal(again, { allow: false, turns: 3, speakers: ['net:a', 'net:b'], retryAfterMs: 999, tripped: false });
  assert.is(g.check('room:r', C, 5, S).allow, false);
});

t('never trips for one agent posting many messages in a row', () => {
  const g = new LoopGuard();
  for (let i = 0; i < 10_000; i++) assert.ok(send(g, A, i));
});

t('counts a turn per change of speaker, not per message', () => {
  const g = new LoopGuard();
  assert.equal(
    [A, A, A, B, B, B, A, A].map((w, i) => send(g, w, i)),
    [true, true, true, true, true, true, true, true],
  );
  assert.is(send(g, B, 8), false);
});

t('counts three agents taking turns like two', () => {
  const g = new LoopGuard();
  assert.equal(
    [A, B, C, A].map((w, i) => send(g, w, i)),
    [true, true, true, false],
  );
});

t('a human message ends the run and is never refused', () => {
  const g = new LoopGuard();
  [A, B, A].forEach((w, i) => send(g, w, i));
  assert.is(send(g, B, 3), false);
  assert.is(send(g, H, 4), true);
  assert.equal(
    [B, A, B].map((w, i) => send(g, w, 5 + i)),
    [true, true, true],
  );
  assert.is(send(g, A, 8), false);
});

t('a pause longer than pause_ms ends the run; refused sends do not extend it', () => {
  const g = new LoopGuard();
  [A, B, A].forEach((w, i) => send(g, w, i * 100)); // last accepted at 200
  assert.is(send(g, B, 300), false);
  assert.is(send(g, B, 1100), false); // refused retries do not move the pause
  assert.is(send(g, B, 1200), false); // exactly pause_ms is not longer than it
  assert.is(send(g, B, 1201), true);
  assert.is(g.size, 1);
});

t('keeps conversations apart', () => {
  const g = new LoopGuard();
  [A, B, A].forEach((w, i) => send(g, w, i, S, 'room:x'));
  assert.is(send(g, B, 3, S, 'room:y'), true);
  assert.is(send(g, B, 4, S, 'room:x'), false);
});

t('does nothing when disabled', () => {
  const g = new LoopGuard();
  const off = { ...S, enabled: false };
  for (let i = 0; i < 100; i++) assert.ok(send(g, i % 2 ? A : B, i, off));
  assert.is(g.size, 0);
});

t('forgets runs whose pause has passed when swept', () => {
  const g = new LoopGuard();
  send(g, A, 0, S, 'room:x');
  send(g, A, 500, S, 'room:y');
  g.sweep(1001);
  assert.is(g.size, 1);
  g.sweep(1501);
  assert.is(g.size, 0);
});

t('room settings override the network settings key by key', () => {
  assert.equal(loopSettingsFor(S), S);
  assert.equal(loopSettingsFor(S, { max_consecutive: 9 }), { enabled: true, max_consecutive: 9, pause_ms: 1000 });
  assert.equal(loopSettingsFor(S, { enabled: false, pause_ms: undefined }), { enabled: false, max_consecutive: 3, pause_ms: 1000 });
});

t.run();
