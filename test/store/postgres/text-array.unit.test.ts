// The write statements' array parameters (src/store/postgres/text-array.ts) are the very literals pg
// would send for the same arrays, whatever the strings hold.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { textArray } from '../../../src/store/postgres/text-array.js';

// pg's own serializer (its types do not declare the module).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(v: unknown): unknown };
const pgLiteral = (values: unknown[]) => prepareValue(values);

const TRICKY = [
  '',
  'plain',
  'a "quoted" word',
  'back\\slash and \\"both\\"',
  'line\nbreak\ttab\r\u0000nul\u001fus',
  '{"json":"body","n":[1,2],"esc":"\\"\\\\\\n"}',
  'émoji 👋 and 中文',
  'lone \ud800 high and \udc00 low',
  'NULL',
  ',{}',
  ' spaces ',
];

test('every element as pg writes it: quotes, backslashes, control characters, emoji, lone surrogates', () => {
  for (const s of TRICKY) assert.is(textArray([s]), pgLiteral([s]), JSON.stringify(s));
  assert.is(textArray(TRICKY), pgLiteral(TRICKY));
});

test('null and undefined are NULL, numbers their digits, an empty array {}', () => {
  assert.is(textArray([null, undefined, 'x', 12, 3.5]), pgLiteral([null, undefined, 'x', 12, 3.5]));
  assert.is(textArray([]), '{}');
  assert.is(textArray([null]), '{NULL}');
});

test('random strings over the characters that matter come out as pg makes them', () => {
  const alphabet = ['a', '"', '\\', '\n', '\u0001', ',', '{', '}', ' ', 'é', '👋', '\ud800', '\udfff'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let i = 0; i < 500; i++) {
    const values = Array.from({ length: 1 + (next() % 4) }, () =>
      Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join(''),
    );
    assert.is(textArray(values), pgLiteral(values), JSON.stringify(values));
  }
});

test('anything but strings, numbers and nulls is refused, not guessed at', () => {
  assert.throws(() => textArray([{ a: 1 }]), /text\[\] parameter holds a object/);
});

test.run();
