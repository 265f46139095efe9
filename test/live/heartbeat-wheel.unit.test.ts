import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HeartbeatWheel, SLOTS, type Beating } from '../../src/live/attach/heartbeat.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `n` beats were seen; timers only run late on a loaded machine, so this bounds nothing but a hang. */
async function beatsOf(b: { beats: number[] }, n: number): Promise<void> {
  const end = Date.now() + 10_000;
  while (b.beats.length < n && Date.now() < end) await sleep(10);
}

function beater(onBeat?: () => void): Beating & { beats: number[] } {
  const b = {
    wheelSlot: -1,
    beats: [] as number[],
    beat() {
      b.beats.push(Date.now());
      onBeat?.();
    },
  };
  return b;
}

const t = suite('the heartbeat wheel');

t('beats each member about once per interval, the first one interval after it joined', async () => {
  const wheel = new HeartbeatWheel(80);
  const b = beater();
  const joined = Date.now();
  wheel.add(b);
  await beatsOf(b, 3);
  wheel.remove(b);
  assert.ok(b.beats.length >= 3, `beats: ${b.beats.length}`);
  // Beats keep to the clock, as a per-socket interval would: beat k is due (k + 1) intervals after
  // joining, one slot early at most (the slot it joined had just turned), never before that. A
  // late timer makes a beat late and the next one on time, so only this lower bound is certain.
  for (let k = 0; k < b.beats.length; k++) {
    const after = b.beats[k]! - joined;
    assert.ok(after >= (k + 1) * 80 - 80 / SLOTS - 2, `beat ${k} after ${after} ms`);
  }
});

t('stops beating a member once removed, and a member removed during its own beat is not beaten again', async () => {
  const wheel = new HeartbeatWheel(40);
  const kept = beater();
  const quitter: Beating & { beats: number[] } = beater(() => wheel.remove(quitter));
  wheel.add(kept);
  wheel.add(quitter);
  await beatsOf(kept, 3);
  wheel.remove(kept);
  assert.is(quitter.beats.length, 1);
  assert.ok(kept.beats.length >= 3, `kept beats: ${kept.beats.length}`);
  assert.is(wheel.size, 0);
  const before = kept.beats.length;
  await sleep(100);
  assert.is(kept.beats.length, before);
});

t('adding a member twice keeps one membership', () => {
  const wheel = new HeartbeatWheel(1000);
  const b = beater();
  wheel.add(b);
  wheel.add(b);
  assert.is(wheel.size, 1);
  wheel.remove(b);
  wheel.remove(b);
  assert.is(wheel.size, 0);
  assert.is(b.wheelSlot, -1);
});

t.run();
