// The candidates a message names that resolve to no member (src/protocol/mentions.ts), and the
// "did you mean" of an unknown id (src/protocol/closest-id.ts), with exact values.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closestId, editDistance } from '../../src/protocol/closest-id.js';
import { resolveMentionsExplained, unmentionedLines, type MentionScope } from '../../src/protocol/mentions.js';

const scope: MentionScope = {
  localNetwork: 'home',
  members: ['home:alpha', 'home:beta', 'other:beta'],
  aliases: new Map([['pal', 'other']]),
};

const explained = suite('mentions that did not resolve');

explained('each is named once, scoped, trailing punctuation dropped, after the resolved ones are kept', () => {
  const r = resolveMentionsExplained(['@alpha @gamma. @gamma @pal:zed <@svc://far/agents/q> @beta'], ['delta', 'alpha'], scope, 10);
  assert.equal(r.mentions, ['svc://home/agents/alpha']);
  assert.equal(r.unresolved, [
    { candidate: 'gamma', scoped: 'home:gamma' },
    { candidate: 'pal:zed', scoped: 'other:zed' },
    { candidate: 'svc://far/agents/q', scoped: 'far:q' },
    { candidate: 'beta', ambiguous: true },
    { candidate: 'delta', scoped: 'home:delta' },
  ]);
});

explained('no more than the limit are named, and none with a limit of 0', () => {
  const text = Array.from({ length: 30 }, (_, i) => `@n${i}`).join(' ');
  assert.is(resolveMentionsExplained([text], [], scope, 3).unresolved.length, 3);
  assert.equal(resolveMentionsExplained([text], [], scope, 0).unresolved, []);
});

explained('the lines the CLI and MCP print', () => {
  assert.equal(
    unmentionedLines([
      { id: 'beta', reason: 'not_member', detail: 'beta is not a member of room ops', fix: 'svc rooms members ops --add beta' },
    ]),
    ['not mentioned: @beta: beta is not a member of room ops; fix: svc rooms members ops --add beta'],
  );
});

const closest = suite('did you mean');

closest('edit distance counts insertions, deletions and substitutions', () => {
  assert.is(editDistance('alpha', 'alpha'), 0);
  assert.is(editDistance('alhpa', 'alpha'), 2);
  assert.is(editDistance('gamm', 'gamma'), 1);
  assert.is(editDistance('', 'abc'), 3);
});

closest('the closest id within two edits (and under half the length) is suggested, case aside', () => {
  assert.is(closestId('alhpa', ['beta', 'alpha']), 'alpha');
  assert.is(closestId('Gamm', ['gamma', 'beta']), 'gamma');
  assert.is(closestId('zzz', ['alpha', 'beta']), undefined);
  assert.is(closestId('ab', ['xy']), undefined);
  assert.is(closestId('alpha', ['alpha']), undefined, 'itself is no suggestion');
});

explained.run();
closest.run();
