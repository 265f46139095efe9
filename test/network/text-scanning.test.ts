// Every path that scans message text stays linear: a 1 MiB adversarial text (the body limit) costs
// at most a few times what an ordinary text of the same size costs, measured side by side in the
// same test (a fixed limit in milliseconds would depend on the machine and its load), in-process
// with the pure functions and end to end by a server that keeps answering /healthz while it stores
// the message. The quadratic versions took seconds to minutes on these inputs, hundreds of times
// the ordinary text.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { performance } from 'node:perf_hooks';
import { mentionCandidates, resolveMentions, type MentionScope } from '../../src/protocol/mentions.js';
import { artifactsOf } from '../../src/network/messages.js';
import { LoopGuard } from '../../src/loop-guard/detector.js';
import type { Message } from '../../src/protocol/types.js';
import { TOKENS } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';

const MIB = 1024 * 1024;
/**
 * Adversarial cost / ordinary cost. The linear code measures at most 3 on a loaded two-core
 * machine; a scan that backtracks over 60 KiB of the text already passes 10.
 */
const RATIO = 10;

const fill = (unit: string, head = '', tail = '') => head + unit.repeat(Math.floor((MIB - head.length - tail.length) / unit.length)) + tail;

/** An ordinary 1 MiB text for the mention scan: as many well-formed mentions as fit in short greetings. */
const ORDINARY = fill('hi @alpha ');

/** Inputs that made the old regular expressions and per-candidate scans quadratic. */
const ADVERSARIAL: Record<string, string> = {
  'one mention with a long run of dashes': fill('-', '@a', 'b'),
  'one mention whose trailing run is all punctuation': fill('._-', '@a'),
  'unclosed FQID openings back to back': fill('<@svc://'),
  'unclosed FQID openings with glued at-signs': fill('<@svc://@'),
  'closed FQID mentions back to back': fill('<@svc://n/agents/a>'),
  'an FQID opening that never closes': fill('x', '<@svc://'),
  'many bare mentions': fill('@alpha '),
  'many alias mentions': fill('@pal:beta '),
  'glued at-signs': fill('@'),
  'at-signs after FQID spans': fill('<@svc://n/agents/a>', '', '@alpha'),
};

const manyMembers: MentionScope = {
  localNetwork: 'home',
  members: Array.from({ length: 2000 }, (_, i) => `${i % 2 ? 'home' : 'other'}:agent-${i}`).concat(['home:alpha', 'other:beta']),
  aliases: new Map([['pal', 'other']]),
};

function timed<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

/**
 * The fastest of `runs` timings of each, taken in turn: the ones least disturbed by other work on
 * the machine (and the JIT's warm-up). Taken in turn, a burst of load slows both, not one.
 */
function fastestOfEach(a: () => unknown, b: () => unknown, runs = 5): [number, number] {
  let [ta, tb] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (let i = 0; i < runs; i++) {
    ta = Math.min(ta, timed(a).ms);
    tb = Math.min(tb, timed(b).ms);
  }
  return [ta, tb];
}

/** Asserts `fn` costs at most RATIO times `base`. */
function costsAtMostRatio(fn: () => unknown, base: () => unknown, what: string): void {
  const [ms, baseMs] = fastestOfEach(fn, base);
  atMostRatio(ms, baseMs, what);
}

/** Asserts `ms` is at most RATIO times `baseMs`, with both figures in the message. */
function atMostRatio(ms: number, baseMs: number, what: string): void {
  assert.ok(
    ms <= RATIO * baseMs,
    `${what}: ${ms.toFixed(1)} ms, ${(ms / baseMs).toFixed(1)}x the ordinary ${baseMs.toFixed(1)} ms (at most ${RATIO}x)`,
  );
}

const pure = suite('scanning a 1 MiB adversarial text in-process');

for (const [name, text] of Object.entries(ADVERSARIAL)) {
  pure(`mention parsing and resolution of ${name} cost at most ${RATIO}x an ordinary text of the same size`, () => {
    assert.ok(text.length > MIB - 64 && text.length <= MIB, `input is ${text.length} characters`);
    assert.ok(Math.abs(ORDINARY.length - text.length) < 64);
    costsAtMostRatio(
      () => resolveMentions([text], [], manyMembers),
      () => resolveMentions([ORDINARY], [], manyMembers),
      name,
    );
  });
}

pure('the long dash run still resolves the way a short one does', () => {
  const scope: MentionScope = { localNetwork: 'home', members: ['home:a'] };
  assert.equal(resolveMentions([fill('-', 'hi @a')], [], scope), ['svc://home/agents/a']);
  assert.equal(mentionCandidates('@a---b'), ['a---b']);
  assert.equal(resolveMentions(['@a---b'], [], scope), []);
});

pure('many bare mentions resolve once each, in order', () => {
  const { value } = timed(() =>
    resolveMentions([ADVERSARIAL['many alias mentions']!, ADVERSARIAL['many bare mentions']!], [], manyMembers),
  );
  assert.equal(value, ['svc://other/agents/beta', 'svc://home/agents/alpha']);
});

pure(`artifact extraction of a message with tens of thousands of parts costs at most ${RATIO}x one with ordinary text parts`, () => {
  const message = (text: string) =>
    ({
      id: 'm1',
      network_id: 'home',
      target: { kind: 'room', room_id: 'r' },
      from: { type: 'agent', id: 'a', network_id: 'home' },
      parts: Array.from({ length: 40_000 }, (_, i) =>
        i % 2 ? { kind: 'text' as const, text } : { kind: 'url' as const, url: `https://example.com/${i}` },
      ),
      mentions: [],
      created_at: '2026-01-01T00:00:00Z',
    }) as unknown as Message;
  const hostile = message('@a-');
  const ordinary = message('hi!');
  assert.is(artifactsOf('home', hostile).length, 20_000);
  costsAtMostRatio(
    () => artifactsOf('home', hostile),
    () => artifactsOf('home', ordinary),
    'artifacts',
  );
});

pure('the loop guard does not read message text, so its cost does not grow with it', () => {
  // It keys on conversation and sender only; a long sender id is the only text it sees. Its cost
  // with a 1 MiB sender id is held against the same calls with a short one.
  const s = { enabled: true, max_consecutive: 4, pause_ms: 60_000 };
  const calls = (id: string) => () => {
    const g = new LoopGuard();
    for (let i = 0; i < 100_000; i++) {
      const from = { type: 'agent', id: i % 2 ? id : 'home:b' } as const;
      g.check('c', from, i, s);
      g.record('c', from, i, s);
    }
  };
  const short = calls('home:a');
  const long = calls(`home:${'-'.repeat(MIB)}`);
  costsAtMostRatio(long, short, 'loop guard with a 1 MiB sender id');
});

pure.run();

const live = suite('a server receiving a 1 MiB adversarial direct message');

live(`the send costs at most ${RATIO}x an ordinary one of the same size, and /healthz keeps answering meanwhile`, async () => {
  const s = await startApp({ config: { auth: { agent_registration: 'open' } } });
  try {
    const dm = (other: string, text: string) => ({
      target: { kind: 'dm', participant_ids: ['alpha', other] },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text }],
    });
    /** One send, timed, with the /healthz round trips that ran beside it. */
    const timedSend = async (body: Record<string, unknown>) => {
      const health: number[] = [];
      let sending = true;
      const probe = (async () => {
        while (sending) {
          const t0 = performance.now();
          const h = await s.get('/healthz');
          assert.is(h.status, 200);
          health.push(performance.now() - t0);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const t0 = performance.now();
      const r = await s.post('/v1/messages', body, TOKENS.alphaOnly.value);
      const ms = performance.now() - t0;
      sending = false;
      await probe;
      assert.is(r.status, 200, r.text);
      return { r, ms, slowestHealth: Math.max(...health) };
    };
    const text = fill('-', '@beta', 'x').slice(0, MIB - 4096);
    // Plain prose: the baseline is what storing 1 MiB costs without any mention to resolve.
    const ordinary = fill('hello there, a plain sentence. ').slice(0, text.length);
    // The fastest of two ordinary sends (the first also opens their DM) is the baseline.
    const base = Math.min((await timedSend(dm('gamma', ordinary))).ms, (await timedSend(dm('gamma', ordinary))).ms);
    const hostile = await timedSend(dm('beta', text));
    assert.is(hostile.r.body.dm_created, true);
    atMostRatio(hostile.ms, base, 'the adversarial send');
    // The server is never stuck longer than a few ordinary sends: a scan that held the event loop
    // would hold the /healthz beside it as long.
    atMostRatio(hostile.slowestHealth, base, 'the slowest /healthz beside it');
  } finally {
    await s.dispose();
  }
});

live.run();
