// Mention resolution (the spec, Events > Mentions). Pure: the caller supplies the conversation's
// members as scoped ids. Best effort: what does not resolve to exactly one member is dropped.
//
// Message text is attacker-controlled and up to the body limit (1 MiB), so parsing is a
// hand-written scanner that visits each character a bounded number of times: no regular
// expression with backtracking runs over the text or over a candidate taken from it.

import { fqid, parseFqid } from './ids.js';
import type { Unmentioned } from './types.js';

export interface MentionScope {
  localNetwork: string;
  /** Room members or DM participants, scoped (`net:agent`). */
  members: readonly string[];
  /** Network aliases usable in `@alias:agent` (alias -> network id). A network id is its own alias. */
  aliases?: ReadonlyMap<string, string>;
}

const FQID_OPEN = '<@svc://';

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
/** Characters an id may continue with: letters, digits, `.`, `_`, `-`. */
function isIdChar(c: number): boolean {
  return isAlnum(c) || c === 46 || c === 95 || c === 45;
}
/** A character glued before `@` that makes it not a mention (`bob@alpha.com`, `@@x`). */
function gluesBefore(c: number): boolean {
  return isAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45 || c === 64;
}
function isSpace(c: number): boolean {
  // What `\s` matches in a JavaScript regular expression.
  return (
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 160 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** `<@svc://...>` spans as [start, end) pairs, left to right, never overlapping. */
function fqidSpans(text: string): number[] {
  const spans: number[] = [];
  let from = 0;
  for (;;) {
    const at = text.indexOf(FQID_OPEN, from);
    if (at < 0) return spans;
    let j = at + FQID_OPEN.length;
    while (j < text.length && text.charCodeAt(j) !== 62 && !isSpace(text.charCodeAt(j))) j++;
    if (j < text.length && text.charCodeAt(j) === 62 && j > at + FQID_OPEN.length) {
      spans.push(at, j + 1);
      from = j + 1;
    } else {
      // Every opening between here and j stops at the same character, so none can close.
      from = Math.max(j, at + 1);
    }
  }
}

/** Candidates in order of appearance: `<@svc://...>` forms, `@alias:agent` and `@agent`. */
export function mentionCandidates(text: string): string[] {
  const out: string[] = [];
  const spans = fqidSpans(text);
  let s = 0; // index into spans of the next FQID span at or after i
  const n = text.length;
  let i = 0;
  let at = -1; // the next '@' at or after i (cached: a fresh search per FQID span would be quadratic)
  while (i < n) {
    if (s < spans.length && i === spans[s]) {
      out.push(text.slice(i + 2, spans[s + 1]! - 1));
      i = spans[s + 1]!;
      s += 2;
      continue;
    }
    if (at !== n && at < i) {
      at = text.indexOf('@', i);
      if (at < 0) at = n;
    }
    const nextSpan = s < spans.length ? spans[s]! : n;
    if (at >= nextSpan) {
      i = nextSpan;
      continue;
    }
    i = at + 1;
    // The character before, as the text mention sees it: an FQID span reads as blank.
    const prevBlank = at === 0 || (s > 0 && spans[s - 1] === at);
    if (!prevBlank && gluesBefore(text.charCodeAt(at - 1))) continue;
    if (at + 1 >= nextSpan || !isAlnum(text.charCodeAt(at + 1))) continue;
    let j = at + 2;
    while (j < nextSpan && isIdChar(text.charCodeAt(j))) j++;
    let value = text.slice(at + 1, j);
    if (j + 1 < nextSpan && text.charCodeAt(j) === 58 && isAlnum(text.charCodeAt(j + 1))) {
      let k = j + 2;
      while (k < nextSpan && isIdChar(text.charCodeAt(k))) k++;
      value += text.slice(j, k);
      j = k;
    }
    out.push(value);
    i = j;
  }
  return out;
}

/** Drops trailing `.`, `_` and `-` ("@alpha." at the end of a sentence). */
function trimTrailing(c: string): string {
  let end = c.length;
  while (end > 0) {
    const ch = c.charCodeAt(end - 1);
    if (ch !== 46 && ch !== 95 && ch !== 45) break;
    end--;
  }
  return c.slice(0, end);
}

/** Members indexed once per message, so each candidate resolves in time linear in its length. */
class MemberIndex {
  private readonly members: Set<string>;
  /** bare id -> its network, or null when two networks have a member of that id */
  private readonly byId = new Map<string, string | null>();
  constructor(private readonly scope: MentionScope) {
    this.members = new Set(scope.members);
    for (const m of scope.members) {
      const colon = m.indexOf(':');
      const id = m.slice(colon + 1);
      const net = m.slice(0, colon);
      const seen = this.byId.get(id);
      this.byId.set(id, seen === undefined || seen === net ? net : null);
    }
  }

  private pick(net: string, id: string): string | undefined {
    return this.members.has(`${net}:${id}`) ? fqid(net, 'agents', id) : undefined;
  }

  private tryOne(c: string): string | undefined {
    if (c.startsWith('svc://')) {
      const f = parseFqid(c);
      return f && f.kind === 'agents' ? this.pick(f.network_id, f.id) : undefined;
    }
    const colon = c.indexOf(':');
    if (colon >= 0) {
      const alias = c.slice(0, colon);
      return this.pick(this.scope.aliases?.get(alias) ?? alias, c.slice(colon + 1));
    }
    const net = this.byId.get(c);
    return net ? fqid(net, 'agents', c) : undefined;
  }

  /** What an unresolved candidate names, scoped, when it names one agent. */
  named(c: string): { scoped?: string; ambiguous?: boolean } {
    if (c.startsWith('svc://')) {
      const f = parseFqid(c);
      return f && f.kind === 'agents' ? { scoped: `${f.network_id}:${f.id}` } : {};
    }
    const colon = c.indexOf(':');
    if (colon >= 0) return { scoped: `${this.scope.aliases?.get(c.slice(0, colon)) ?? c.slice(0, colon)}:${c.slice(colon + 1)}` };
    if (this.byId.get(c) === null) return { ambiguous: true };
    return { scoped: `${this.scope.localNetwork}:${c}` };
  }

  resolve(candidate: string): string | undefined {
    const direct = this.tryOne(candidate);
    if (direct || candidate.startsWith('svc://')) return direct;
    const trimmed = trimTrailing(candidate);
    return trimmed && trimmed !== candidate ? this.tryOne(trimmed) : undefined;
  }
}

/**
 * A candidate that resolved to no member: the agent it names as `net:agent` (scoped), or why it
 * names none. `ambiguous`: a bare id that members of two networks carry.
 */
export interface Unresolved {
  /** The candidate as the sender wrote it, trailing `.`, `_`, `-` dropped. */
  candidate: string;
  /** The agent it names, scoped (`net:agent`); absent when ambiguous or not an agent reference. */
  scoped?: string;
  ambiguous?: boolean;
}

/** Resolves one candidate (`agent`, `alias:agent` or an agent FQID) to an FQID, or undefined. */
export function resolveCandidate(candidate: string, scope: MentionScope): string | undefined {
  return new MemberIndex(scope).resolve(candidate);
}

/** The stored `mentions`: FQIDs from text forms and the explicit field, deduplicated, in order. */
export function resolveMentions(texts: readonly string[], explicit: readonly string[], scope: MentionScope): string[] {
  return resolveMentionsExplained(texts, explicit, scope, 0).mentions;
}

/**
 * The stored `mentions`, and the first `maxUnresolved` distinct candidates that resolved to no
 * member, so the sender can be told (resolution stays best-effort: they never reject a message).
 */
export function resolveMentionsExplained(
  texts: readonly string[],
  explicit: readonly string[],
  scope: MentionScope,
  maxUnresolved: number,
): { mentions: string[]; unresolved: Unresolved[] } {
  const index = new MemberIndex(scope);
  const out: string[] = [];
  const seen = new Set<string>();
  const unresolved: Unresolved[] = [];
  const missed = new Set<string>();
  const take = (c: string) => {
    const r = index.resolve(c);
    if (r) {
      if (!seen.has(r)) {
        seen.add(r);
        out.push(r);
      }
      return;
    }
    if (unresolved.length >= maxUnresolved) return;
    // "@beta." at the end of a sentence names beta.
    const shown = c.startsWith('svc://') ? c : trimTrailing(c) || c;
    if (missed.has(shown)) return;
    missed.add(shown);
    unresolved.push({ candidate: shown, ...index.named(shown) });
  };
  for (const t of texts) for (const c of mentionCandidates(t)) take(c);
  for (const c of explicit) take(c);
  return { mentions: out, unresolved };
}

/** One line per candidate the send answer names as not mentioned (the CLI and the MCP result print these). */
export function unmentionedLines(list: readonly Unmentioned[]): string[] {
  return list.map((u) => `not mentioned: @${u.id}: ${u.detail}; fix: ${u.fix}`);
}
