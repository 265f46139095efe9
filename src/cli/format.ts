// Human output: aligned tables, key/value blocks and check marks. Widths are measured on the plain
// text and colour is applied after padding, so columns line up with or without colour.

import type { ChalkInstance } from 'chalk';
import type { Column } from '../feature-cli.js';

export type { Column };

/** The lines of an aligned table with a header; the last column is not padded. */
export function table<T>(c: ChalkInstance, rows: readonly T[], cols: readonly Column<T>[]): string[] {
  const cells = rows.map((r) => cols.map((col) => oneLine(col.value(r))));
  const widths = cols.map((col, i) => Math.max(col.header.length, ...cells.map((row) => row[i]!.length)));
  const last = cols.length - 1;
  const pad = (s: string, i: number) => (i === last ? s : s.padEnd(widths[i]!));
  const header = cols.map((col, i) => c.bold(pad(col.header, i))).join('  ');
  const body = cells.map((row, r) =>
    row
      .map((text, i) => {
        const style = cols[i]!.style;
        const padded = pad(text, i);
        return style ? style(padded, rows[r]!) : padded;
      })
      .join('  '),
  );
  return [header.trimEnd(), ...body.map((l) => l.trimEnd())];
}

/** Lines of `key  value` pairs with aligned values; undefined values are skipped. */
export function keyValues(c: ChalkInstance, pairs: readonly [string, string | undefined][]): string[] {
  const shown = pairs.filter((p): p is [string, string] => p[1] !== undefined);
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${c.dim(k.padEnd(width))}  ${oneLine(v)}`);
}

/** A list for a table cell: `a, b, c`, or `-` when empty. */
export const list = (xs: readonly string[] | undefined): string => (xs && xs.length > 0 ? xs.join(', ') : '-');

/** Check marks of `svc doctor`. */
export type Status = 'ok' | 'warn' | 'fail' | 'info' | 'skip';

export function mark(c: ChalkInstance, s: Status): string {
  switch (s) {
    case 'ok':
      return c.green('✓');
    case 'warn':
      return c.yellow('!');
    case 'fail':
      return c.red('✗');
    case 'info':
      return c.cyan('i');
    case 'skip':
      return c.dim('-');
  }
}

/**
 * Characters that change how a terminal shows text without being text: bidi embeddings, overrides
 * and isolates (U+202A-202E, U+2066-2069, U+061C, U+200E/F), zero-width and invisible formatting
 * (U+200B-200D, U+2060-2064, U+FEFF), and line/paragraph separators. A name holding U+202E prints
 * reversed and can pose as another; none of them belongs in a one-line value.
 */
// eslint-disable-next-line no-misleading-character-class
export const INVISIBLE = /[\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Server or invite text made safe for one terminal line: controls and bidi/invisible characters become `?`, newlines fold. */
export function oneLine(s: string): string {
  return s.replace(/\r?\n/g, ' ⏎ ').replace(CONTROL, '?').replace(INVISIBLE, '?');
}

/** Whether a name holds anything oneLine would replace (a name to refuse rather than store). */
export function hasUnsafeChars(s: string): boolean {
  return new RegExp(CONTROL.source).test(s) || new RegExp(INVISIBLE.source).test(s);
}

/** Machine output: pretty JSON, one value; bidi/invisible characters are written as \u escapes (same data, safe on a terminal). */
export const json = (v: unknown): string => escapeInvisible(JSON.stringify(v, null, 2));

/** JSON text with bidi/invisible characters as \u escapes (JSON.stringify escapes only C0). */
export const escapeInvisible = (text: string): string =>
  text.replace(INVISIBLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
