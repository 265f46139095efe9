// What search sees of a message, and how text becomes words: one definition shared by every store
// backend (sqlite indexes the words this produces, memory compares them directly) and by the
// snippets, so a word matches or not the same way whichever backend holds the messages.

import type { Message, Part } from './types.js';

/** Most words of a query that are matched (the rest are ignored); bounds the work per search. */
export const MAX_QUERY_WORDS = 16;
/** Longest accepted `q`, in characters. */
export const MAX_QUERY_LENGTH = 512;

/** A search hit on the wire: the message as history returns it, plus a short extract with the matches marked. */
export type SearchHit = Message & { snippet: string };

/** The words of a search: every one must match; the last matches as a prefix when `prefix`. */
export interface SearchTerms {
  words: string[];
  prefix: boolean;
}

/** The texts of a message that search looks at: `text` parts, and the name and address of `url`/`file` parts. */
export function searchableTexts(m: Pick<Message, 'parts'>): string[] {
  const out: string[] = [];
  for (const p of m.parts as Part[]) {
    if (p.kind === 'text') {
      if (typeof p.text === 'string' && p.text !== '') out.push(p.text);
    } else if (p.kind === 'url' || p.kind === 'file') {
      if (typeof p.filename === 'string' && p.filename !== '') out.push(p.filename);
      if (typeof p.url === 'string' && p.url !== '') out.push(p.url);
    }
  }
  return out;
}

// A run of letters, digits and combining marks in the original text (marks keep decomposed
// letters whole); each run is then folded and split again into words.
const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}/gu;

/** Lower case first (so `İ` folds to `i`), then accents dropped: `Ünïcode` -> `unicode`. */
function fold(s: string): string {
  return s.toLowerCase().normalize('NFKD').replace(MARKS, '');
}

/** The words of one run of the original text. */
function runWords(run: string): string[] {
  return fold(run).match(WORD) ?? [];
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

/** The words of a text, folded (lower case, no accents), in order. */
export function wordsOf(text: string): string[] {
  // Most text is ASCII, where folding is lower-casing: the same words, several times faster
  // (this runs on every message write).
  if (ASCII.test(text)) return text.toLowerCase().match(ASCII_WORD) ?? [];
  const out: string[] = [];
  for (const m of text.matchAll(RUN)) for (const w of runWords(m[0])) out.push(w);
  return out;
}

/**
 * The words of a message as one string for a full-text index: folded words separated by spaces.
 * Each word holds only letters and digits, so sqlite's `simple` tokenizer (which splits on ASCII
 * non-alphanumerics and lowercases ASCII) gives back exactly these words.
 */
export function indexText(m: Pick<Message, 'parts'>): string {
  return searchableTexts(m)
    .map((t) => wordsOf(t).join(' '))
    .filter((s) => s !== '')
    .join(' ');
}

/**
 * Shortest last word matched as a prefix. Shorter ones match whole: `a*` would match nearly every
 * message, and the index reads every matching word's postings before it keeps the newest few.
 */
export const MIN_PREFIX = 3;

/** A query string as search terms; undefined when it holds no word at all. */
export function parseQuery(q: string): SearchTerms | undefined {
  const words = wordsOf(q).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return undefined;
  return { words, prefix: [...words[words.length - 1]!].length >= MIN_PREFIX };
}

/** Whether a word matches term `i` of the search (the last one by prefix when asked). */
function termMatches(t: SearchTerms, i: number, word: string): boolean {
  const w = t.words[i]!;
  return t.prefix && i === t.words.length - 1 ? word.startsWith(w) : word === w;
}

/** Whether every term matches some word of `words` (the memory backend's search). */
export function matchesAll(t: SearchTerms, words: readonly string[]): boolean {
  for (let i = 0; i < t.words.length; i++) {
    let found = false;
    for (const w of words) {
      if (termMatches(t, i, w)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

/**
 * The sqlite FTS4 MATCH expression of the terms: each word quoted (so no word reads as an
 * operator), implicit AND between them, the last one a prefix (`"wor*"`).
 */
export function ftsMatch(t: SearchTerms): string {
  return t.words.map((w, i) => `"${w}${t.prefix && i === t.words.length - 1 ? '*' : ''}"`).join(' ');
}

/**
 * The Postgres `to_tsquery('simple', ...)` text of the terms, for a backend that indexes
 * `to_tsvector('simple', indexText(m))`: every word ANDed, the last one a prefix (`wor:*`). Words
 * hold only letters and digits, so none reads as an operator.
 */
export function tsQuery(t: SearchTerms): string {
  return t.words.map((w, i) => `${w}${t.prefix && i === t.words.length - 1 ? ':*' : ''}`).join(' & ');
}

const MARK_OPEN = '**';
const MARK_CLOSE = '**';
/** Characters of context kept before the first match. */
const LEAD = 40;
/** Longest snippet, in characters of the original text (markers and ellipses aside). */
const SPAN = 160;

/**
 * A short extract of the message around its first matching word, on one line, each matching word
 * wrapped in `**` (Markdown bold), with `…` where text was cut.
 */
export function snippetOf(m: Pick<Message, 'parts'>, t: SearchTerms): string {
  const texts = searchableTexts(m);
  // The part holding the first match (the words of a match may be spread over parts).
  const text = texts.find((x) => firstMatch(x, t) >= 0) ?? texts[0] ?? '';
  const flat = text.replace(/\s+/g, ' ');
  const anchor = Math.max(0, firstMatch(flat, t));
  // Start at a word boundary at most LEAD characters before the match.
  let start = 0;
  if (anchor > LEAD) {
    const space = flat.indexOf(' ', anchor - LEAD);
    start = space >= 0 && space < anchor ? space + 1 : anchor;
  }
  // End at the last word boundary within SPAN, unless that would cut the match off.
  let end = Math.min(flat.length, start + SPAN);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > anchor) end = space;
  }
  let out = '';
  let at = start;
  for (const r of flat.slice(start, end).matchAll(RUN)) {
    if (!runMatches(r[0], t)) continue;
    const s = start + r.index!;
    out += flat.slice(at, s) + MARK_OPEN + r[0] + MARK_CLOSE;
    at = s + r[0].length;
  }
  out += flat.slice(at, end);
  return `${start > 0 ? '…' : ''}${out.trim()}${end < flat.length ? '…' : ''}`;
}

/** Whether a run of the text holds a word matching some term. */
function runMatches(run: string, t: SearchTerms): boolean {
  return runWords(run).some((w) => t.words.some((_, i) => termMatches(t, i, w)));
}

/** The index of the first run of `text` holding a matching word, or -1. */
function firstMatch(text: string, t: SearchTerms): number {
  for (const r of text.matchAll(RUN)) if (runMatches(r[0], t)) return r.index!;
  return -1;
}
