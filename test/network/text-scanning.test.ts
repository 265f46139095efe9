// Every path that scans message text stays linear: a 1 MiB adversarial text (the body limit) is
// handled well within a second, in-process with the pure functions and end to end by a server
// that keeps answering /healthz while it stores the message.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { performance } from 'node:perf_hooks';
import { mentionCandidates, resolveMentions, type MentionScope } from '../../src/protocol/mentions.js';
import { artifactsOf } from '../../src/network/messages.js';
import { LoopGuard } from '../../src/network/loop-guard.js';
import type { Message } from '../../src/protocol/types.js';
import { startServer, TOKENS } from '../helpers/server.js';

const MIB = 1024 * 1024;
/** Generous for a loaded machine; the quadratic versions took seconds to minutes on these inputs. */
const BUDGET_MS = 1000;

const fill = (unit: string, head = '', tail = '') => head + unit.repeat(Math.floor((MIB - head.length - tail.length) / unit.length)) + tail;

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

const pure = suite('scanning a 1 MiB adversarial text in-process');

for (const [name, text] of Object.entries(ADVERSARIAL)) {
  pure(`mention parsing and resolution of ${name} finish well within a second`, () => {
    assert.ok(text.length > MIB - 64 && text.length <= MIB, `input is ${text.length} characters`);
    const { ms } = timed(() => resolveMentions([text], [], manyMembers));
    assert.ok(ms < BUDGET_MS, `${name}: ${ms.toFixed(0)} ms`);
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

pure('artifact extraction of a message with tens of thousands of parts finishes well within a second', () => {
  const parts = Array.from({ length: 40_000 }, (_, i) =>
    i % 2 ? { kind: 'text' as const, text: '@a-' } : { kind: 'url' as const, url: `https://example.com/${i}` },
  );
  const m = {
    id: 'm1',
    network_id: 'home',
    target: { kind: 'room', room_id: 'r' },
    from: { type: 'agent', id: 'a', network_id: 'home' },
    parts,
    mentions: [],
    created_at: '2026-01-01T00:00:00Z',
  } as unknown as Message;
  const { ms, value } = timed(() => artifactsOf('home', m));
  assert.is(value.length, 20_000);
  assert.ok(ms < BUDGET_MS, `${ms.toFixed(0)} ms`);
});

pure('the loop guard does not read message text, so its cost does not grow with it', () => {
  // It keys on conversation and sender only; a long sender id is the only text it sees.
  const g = new LoopGuard();
  const s = { enabled: true, max_consecutive: 4, pause_ms: 60_000 };
  const long = `home:${'-'.repeat(MIB)}`;
  const { ms } = timed(() => {
    for (let i = 0; i < 100; i++) {
      g.check('c', { type: 'agent', id: i % 2 ? long : 'home:b' }, i, s);
      g.record('c', { type: 'agent', id: i % 2 ? long : 'home:b' }, i, s);
    }
  });
  assert.ok(ms < BUDGET_MS, `${ms.toFixed(0)} ms`);
});

pure.run();

const live = suite('a server receiving a 1 MiB adversarial direct message');

live('the send returns promptly and /healthz keeps answering meanwhile', async () => {
  const s = await startServer({ config: { auth: { agent_registration: 'open' } } });
  try {
    const text = fill('-', '@beta', 'x').slice(0, MIB - 4096);
    const body = {
      target: { kind: 'dm', participant_ids: ['alpha', 'beta'] },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text }],
    };
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
    const sendMs = performance.now() - t0;
    sending = false;
    await probe;
    assert.is(r.status, 200, r.text);
    assert.ok(sendMs < 3000, `send took ${sendMs.toFixed(0)} ms`);
    assert.ok(Math.max(...health) < 1500, `slowest /healthz ${Math.max(...health).toFixed(0)} ms`);
    assert.is(r.body.dm_created, true);
  } finally {
    await s.dispose();
  }
});

live.run();
