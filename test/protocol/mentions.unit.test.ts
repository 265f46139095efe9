// Mention parsing and resolution (src/protocol/mentions.ts) with exact values.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mentionCandidates, resolveCandidate, resolveMentions, type MentionScope } from '../../src/protocol/mentions.js';

const scope: MentionScope = {
  localNetwork: 'home',
  members: ['home:alpha', 'home:beta', 'other:beta', 'other:gamma', 'home:data.bot'],
  aliases: new Map([['pal', 'other']]),
};

const candidates = suite('mention candidates in text');

candidates('finds @id, @alias:id and <@fqid> in order of appearance', () => {
  assert.equal(mentionCandidates('<@svc://other/agents/gamma> hi @alpha and @pal:beta'), ['svc://other/agents/gamma', 'alpha', 'pal:beta']);
});

candidates('ignores e-mail addresses and doubled or glued at-signs', () => {
  assert.equal(mentionCandidates('mail bob@alpha.com'), []);
  assert.equal(mentionCandidates('@@alpha'), []);
  assert.equal(mentionCandidates('x@alpha'), []);
  assert.equal(mentionCandidates('a@b @c'), ['c']);
});

candidates('takes a mention inside punctuation and keeps trailing dots for the resolver', () => {
  assert.equal(mentionCandidates('(@alpha)'), ['alpha']);
  assert.equal(mentionCandidates('thanks @alpha.'), ['alpha.']);
  assert.equal(mentionCandidates('@alpha: can you'), ['alpha']);
});

candidates('does not read an id that starts with punctuation', () => {
  assert.equal(mentionCandidates('@-x @.y'), []);
});

candidates('reads an FQID mention without also reading its inner text as @mentions', () => {
  assert.equal(mentionCandidates('<@svc://home/agents/alpha>'), ['svc://home/agents/alpha']);
  assert.equal(mentionCandidates('<@svc://bad>'), ['svc://bad']);
});

candidates('finds nothing in text without mentions', () => {
  assert.equal(mentionCandidates(''), []);
  assert.equal(mentionCandidates('no mentions here @'), []);
});

const resolve = suite('resolving one mention candidate');

resolve('a bare id naming exactly one member resolves to its FQID', () => {
  assert.is(resolveCandidate('alpha', scope), 'svc://home/agents/alpha');
  assert.is(resolveCandidate('gamma', scope), 'svc://other/agents/gamma');
  assert.is(resolveCandidate('data.bot', scope), 'svc://home/agents/data.bot');
});

resolve('a bare id that matches members on two networks is ambiguous and dropped', () => {
  assert.is(resolveCandidate('beta', scope), undefined);
});

resolve('a network-qualified id resolves by network id or pairing alias', () => {
  assert.is(resolveCandidate('other:beta', scope), 'svc://other/agents/beta');
  assert.is(resolveCandidate('home:beta', scope), 'svc://home/agents/beta');
  assert.is(resolveCandidate('pal:beta', scope), 'svc://other/agents/beta');
  assert.is(resolveCandidate('pal:gamma', scope), 'svc://other/agents/gamma');
});

resolve('an agent FQID resolves only when it names a member', () => {
  assert.is(resolveCandidate('svc://other/agents/beta', scope), 'svc://other/agents/beta');
  assert.is(resolveCandidate('svc://other/agents/alpha', scope), undefined);
});

resolve('an FQID of another kind, or a malformed one, does not resolve', () => {
  assert.is(resolveCandidate('svc://home/rooms/alpha', scope), undefined);
  assert.is(resolveCandidate('svc://bad', scope), undefined);
  assert.is(resolveCandidate('svc://home/agents/alpha.', scope), undefined);
});

resolve('unknown ids and unknown networks do not resolve', () => {
  assert.is(resolveCandidate('zed', scope), undefined);
  assert.is(resolveCandidate('nowhere:alpha', scope), undefined);
  assert.is(resolveCandidate('other:alpha', scope), undefined);
});

resolve('trailing sentence punctuation is dropped when the exact id is not a member', () => {
  assert.is(resolveCandidate('alpha.', scope), 'svc://home/agents/alpha');
  assert.is(resolveCandidate('alpha..', scope), 'svc://home/agents/alpha');
  assert.is(resolveCandidate('other:beta.', scope), 'svc://other/agents/beta');
  assert.is(resolveCandidate('data.bot.', scope), 'svc://home/agents/data.bot');
});

resolve('with no members nothing resolves', () => {
  assert.is(resolveCandidate('alpha', { localNetwork: 'home', members: [] }), undefined);
});

const all = suite('the stored mentions of a message');

all('combine text forms and the explicit field, deduplicated, in order', () => {
  const got = resolveMentions(
    ['@gamma hi <@svc://home/agents/alpha>', 'and @alpha again'],
    ['home:alpha', 'pal:beta', 'svc://home/agents/beta'],
    scope,
  );
  assert.equal(got, ['svc://other/agents/gamma', 'svc://home/agents/alpha', 'svc://other/agents/beta', 'svc://home/agents/beta']);
});

all('drop unknown and ambiguous candidates without failing', () => {
  assert.equal(resolveMentions(['@beta @zed @nowhere:alpha'], ['nobody', '@alpha', 'svc://x'], scope), []);
});

all('are empty for a message without mentions', () => {
  assert.equal(resolveMentions([], [], scope), []);
  assert.equal(resolveMentions(['plain text'], [], scope), []);
});

candidates.run();
resolve.run();
all.run();
