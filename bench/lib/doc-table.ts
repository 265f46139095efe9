// The current results of docs/performance.md: a full `npm run bench` writes the table it wrote to
// bench/results.md between two markers of the document too, with the count of its verdicts, so the
// document always shows one run's table whole. test/docs/performance.test.ts holds the two equal.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { verdicts } from './table.js';

export const BEGIN = '<!-- Written by a full `npm run bench` (bench/lib/doc-table.ts): the same table as bench/results.md. -->';
export const END = '<!-- End of the table `npm run bench` writes. -->';

/** What goes between the markers for the results Markdown `md` (bench/results.md's text). */
export function docTable(md: string): string {
  const v = verdicts(md.slice(md.indexOf('\n| ') + 1));
  const judged = v.met + v.missed + v.saturated + v['—'];
  const unmeasured = v['—'] ? `, ${v['—']} not measured` : '';
  return `${md.trimEnd()}\n\n**${judged} targets: ${v.met} met, ${v.missed} missed, ${v.saturated} saturated${unmeasured}.**`;
}

/** The document with the text between its markers replaced by the table of `md`. */
export function withDocTable(doc: string, md: string): string {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error('docs/performance.md lacks the markers of its results table');
  return `${doc.slice(0, from + BEGIN.length)}\n\n${docTable(md)}\n\n${doc.slice(to)}`;
}

/** Writes the table of `md` into docs/performance.md under `root`. */
export function writeDocTable(root: string, md: string): void {
  const file = path.join(root, 'docs', 'performance.md');
  writeFileSync(file, withDocTable(readFileSync(file, 'utf8'), md));
}
