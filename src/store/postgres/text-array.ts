// A `text[]` parameter as the array literal PostgreSQL reads, made here rather than by pg: pg
// escapes each element with two regular-expression passes and joins by concatenation
// (pg/lib/utils.js arrayString): on the group commit's statement (message and event bodies of a
// whole group) 9.7 µs and 9 KB of garbage a message, against 6 µs and 2.3 KB made here. The literal
// is the very text pg would send; test/store/postgres/text-array.unit.test.ts holds the two side by
// side. Both write statements (append-sql.ts, effects-sql.ts) pass their arrays of bodies so.

/** Characters JSON.stringify escapes in a well-formed string besides `"` and `\`. */
const CONTROL = /[\u0000-\u001f]/;

/**
 * One element, quoted: inside double quotes only `"` and `\` take a backslash. For a well-formed
 * string without control characters that is exactly what JSON.stringify does, natively.
 */
function quoted(s: string): string {
  if (!CONTROL.test(s) && s.isWellFormed()) return JSON.stringify(s);
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The literal of a one-dimensional text array: null and undefined are NULL, numbers their digits. */
export function textArray(values: readonly unknown[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = quoted(v);
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') parts[i] = quoted(String(v));
    else throw new TypeError(`a text[] parameter holds a ${typeof v}`);
  }
  return `{${parts.join(',')}}`;
}
