// docs/performance.md keeps the method, the targets, the current table and a short account of
// what was tried; its table is the one the last `npm run bench` wrote to bench/results.md, with the
// count of its verdicts (bench/lib/doc-table.ts writes both), so the page cannot show figures no
// run produced or a count its table does not give. Pure reading: no bench runs here.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BEGIN, END, docTable, withDocTable } from '../../bench/lib/doc-table.js';
import { ROOT } from '../helpers/server.js';

const test = suite('docs/performance.md');

const DOC = readFileSync(path.join(ROOT, 'docs', 'performance.md'), 'utf8');
const RESULTS = readFileSync(path.join(ROOT, 'bench', 'results.md'), 'utf8');

test('the table is bench/results.md, with the count of its verdicts', () => {
  assert.ok(DOC.includes(BEGIN) && DOC.includes(END), 'the markers of the results table are missing');
  const part = DOC.slice(DOC.indexOf(BEGIN) + BEGIN.length, DOC.indexOf(END)).trim();
  assert.fixture(part, docTable(RESULTS));
  assert.match(part, /\n\*\*\d+ targets: \d+ met, \d+ missed, \d+ saturated\.\*\*$/);
});

test('the page has its method, targets, current results and what was tried, and no diary', () => {
  const headings = [...DOC.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.equal(headings, ['Method', 'Targets that travel', 'Current results', 'What we tried and why it was dropped']);
  assert.ok(DOC.split('\n').length < 360, `${DOC.split('\n').length} lines`);
});

test("the bench's writer replaces the table and nothing else", () => {
  const other = RESULTS.replace(/^Measured .*$/m, 'Measured elsewhere.').replace('| missed |', '| met |');
  const written = withDocTable(DOC, other);
  assert.ok(written.includes('Measured elsewhere.') && !written.includes(RESULTS.split('\n')[0]!));
  assert.is(written.slice(0, written.indexOf(BEGIN)), DOC.slice(0, DOC.indexOf(BEGIN)));
  assert.is(written.slice(written.indexOf(END)), DOC.slice(DOC.indexOf(END)));
  assert.is(withDocTable(written, other), written);
  assert.is(withDocTable(written, RESULTS), DOC);
});

test.run();
