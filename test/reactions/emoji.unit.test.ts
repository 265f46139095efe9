// Which reaction keys are accepted, and the summaries message reads show (pure).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emojiProblem } from '../../src/reactions/emoji.js';
import { summarize, withSummaries } from '../../src/store/reactions/summary.js';
import type { Message } from '../../src/protocol/types.js';
import { describeEvent } from '../../src/cli/commands/tail/run.js';

test('one emoji of any common shape is accepted', () => {
  for (const k of ['👍', '❤', '❤️', '👍🏽', '🇫🇷', '👩‍💻', '👨‍👩‍👧‍👦', '1️⃣', '#⃣', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🫡']) assert.is(emojiProblem(k), undefined, k);
});

test('a :name: shortcode of lower-case letters, digits and _ + - is accepted', () => {
  for (const k of [':ship:', ':+1:', ':white_check_mark:', ':e-2:']) assert.is(emojiProblem(k), undefined, k);
});

test('text, several emoji, emoji with text and bad shortcodes are refused', () => {
  for (const k of ['', 'a', 'ok', '👍👍', 'x👍', '👍x', ':Ship:', '::', ':a b:', `:${'a'.repeat(33)}:`, '1', '\u200D', '🇫']) {
    assert.type(emojiProblem(k), 'string', JSON.stringify(k));
  }
});

test('summaries keep the order each emoji was first used and who reacted, oldest first', () => {
  const r = (emoji: string, by: string) => ({ message_id: 'm1', emoji, by, created_at: '2026-01-01T00:00:00Z' });
  assert.equal(summarize([r('👍', 'n:a'), r('🎉', 'n:b'), r('👍', 'n:c')]), [
    { emoji: '👍', count: 2, by: ['n:a', 'n:c'] },
    { emoji: '🎉', count: 1, by: ['n:b'] },
  ]);
});

test('a message without reactions keeps its shape; one with some gets a copy', () => {
  const m = (id: string) => ({ id }) as Message;
  const [a, b] = [m('m1'), m('m2')];
  const out = withSummaries([a, b], [{ message_id: 'm2', emoji: '👍', by: 'n:a', created_at: 'x' }]);
  assert.is(out[0], a);
  assert.not.ok('reactions' in out[0]!);
  assert.equal(out[1]!.reactions, [{ emoji: '👍', count: 1, by: ['n:a'] }]);
  assert.not.ok('reactions' in b);
});

test('svc tail describes a reaction in one line', () => {
  const line = describeEvent({
    id: 'e',
    type: 'reaction.updated',
    network_id: 'n',
    created_at: '',
    reaction: {
      message_id: 'm1',
      target: { kind: 'room', room_id: 'general' },
      emoji: '👍',
      action: 'added',
      by: 'n:alpha',
      from: { type: 'agent', id: 'alpha', network_id: 'n', fqid: 'svc://n/agents/alpha' },
      count: 2,
    },
  });
  assert.is(line, '#general n:alpha +👍 on m1 (2)');
});

test.run();
