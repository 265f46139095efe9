// Human output: aligned tables, key/value blocks and check marks. Widths are measured on the plain
// text and colour is applied after padding, so columns line up with or without colour.

import type { ChalkInstance } from 'chalk';

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Colour for a cell (applied after padding). */
  style?: (text: string, row: T) => string;
}

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

/** Control characters from the server never reach the terminal (no escape injection), newlines fold. */
export function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\r?\n/g, ' ⏎ ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** Machine output: pretty JSON, one value. */
export const json = (v: unknown): string => JSON.stringify(v, null, 2);
