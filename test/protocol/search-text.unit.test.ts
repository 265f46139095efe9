// The pure half of search: how text becomes words, how a query becomes terms, and the snippet.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ftsMatch, indexText, matchesAll, parseQuery, snippetOf, tsQuery, wordsOf } from '../../src/protocol/search-text.js';

const t = suite('search text');
const m = (text: string) => ({ parts: [{ kind: 'text' as const, text }] });

t('words are letters and digits, lower case, without accents', () => {
  assert.equal(wordsOf("Ünïcode CAFÉ, isn't it? v2.0_beta İstanbul"), ['unicode', 'cafe', 'isn', 't', 'it', 'v2', '0', 'beta', 'istanbul']);
  assert.equal(wordsOf('日本語 テキスト'), ['日本語', 'テキスト']);
  assert.equal(wordsOf('!!! ... ---'), []);
});

t('a message is indexed by its text parts and the names and addresses of url and file parts', () => {
  const parts = [
    { kind: 'text' as const, text: 'Hello there' },
    { kind: 'file' as const, filename: 'Plan.PDF', url: 'https://x.test/a' },
    { kind: 'url' as const, url: 'https://docs.test/runbook' },
    { kind: 'data' as const, data: { secret: 'no' } },
    { kind: 'image' as const, url: 'https://img.test/cat.png' },
  ];
  assert.is(indexText({ parts }), 'hello there plan pdf https x test a https docs test runbook');
});

t('a query keeps at most 16 words, and none is no query', () => {
  assert.equal(parseQuery('  Migration   PLAN '), { words: ['migration', 'plan'], prefix: true });
  assert.is(parseQuery('?!'), undefined);
  assert.is(parseQuery(Array.from({ length: 20 }, (_, i) => `w${i}`).join(' '))!.words.length, 16);
});

t('a last word shorter than three characters matches whole, not as a prefix', () => {
  assert.equal(parseQuery('plan a'), { words: ['plan', 'a'], prefix: false });
  assert.equal(parseQuery('日本'), { words: ['日本'], prefix: false });
  assert.equal(parseQuery('mig'), { words: ['mig'], prefix: true });
  assert.is(ftsMatch(parseQuery('plan a')!), '"plan" "a"');
  assert.not.ok(matchesAll(parseQuery('at')!, ['atlas']));
  assert.ok(matchesAll(parseQuery('at')!, ['at']));
});

t('the FTS expression quotes each word and makes the last a prefix', () => {
  assert.is(ftsMatch(parseQuery('or NEAR migr')!), '"or" "near" "migr*"');
});

t('the Postgres tsquery ANDs the words and makes the last a prefix', () => {
  assert.is(tsQuery(parseQuery('Or NOT migr')!), 'or & not & migr:*');
  assert.is(tsQuery(parseQuery('plan a')!), 'plan & a');
});

t('every word must match; only the last as a prefix', () => {
  const words = ['the', 'migration', 'plan'];
  assert.ok(matchesAll(parseQuery('plan migr')!, words));
  assert.not.ok(matchesAll(parseQuery('migr plan')!, words));
  assert.not.ok(matchesAll(parseQuery('plan lunch')!, words));
});

t('a snippet marks every matching word and keeps the text around the first one', () => {
  assert.is(
    snippetOf(m('We decided: the Migration runs on friday.'), parseQuery('migration')!),
    'We decided: the **Migration** runs on friday.',
  );
  assert.is(snippetOf(m('café and CAFE'), parseQuery('cafe')!), '**café** and **CAFE**');
  assert.is(snippetOf(m('line one\n\nline   two migrations'), parseQuery('migr')!), 'line one line two **migrations**');
});

t('a long text is cut at word boundaries around the first match, with ellipses', () => {
  const long = `${'alpha '.repeat(30)}needle ${'omega '.repeat(60)}`;
  const s = snippetOf(m(long), parseQuery('needle')!);
  assert.ok(s.startsWith('…alpha'), s);
  assert.ok(s.endsWith('omega…'), s);
  assert.ok(s.includes('**needle**'), s);
  assert.ok(s.length <= 170, String(s.length));
});

t('a snippet comes from the part that matched', () => {
  const parts = [
    { kind: 'text' as const, text: 'nothing here' },
    { kind: 'file' as const, filename: 'budget-2025.xlsx' },
  ];
  assert.is(snippetOf({ parts }, parseQuery('budget')!), '**budget**-2025.xlsx');
});

t.run();
