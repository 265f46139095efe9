// Mention resolution (SPEC.md, Events > Mentions). Pure: the caller supplies the conversation's
// members as scoped ids. Best effort: what does not resolve to exactly one member is dropped.

import { fqid, parseFqid } from './ids.js';

export interface MentionScope {
  localNetwork: string;
  /** Room members or DM participants, scoped (`net:agent`). */
  members: readonly string[];
  /** Network aliases usable in `@alias:agent` (alias -> network id). A network id is its own alias. */
  aliases?: ReadonlyMap<string, string>;
}

const TEXT_MENTION = /(?<![A-Za-z0-9._%+\-@])@([A-Za-z0-9][A-Za-z0-9._-]*)(?::([A-Za-z0-9][A-Za-z0-9._-]*))?/g;
const FQID_MENTION = /<@(svc:\/\/[^>\s]+)>/g;
const TRAILING = /[._-]+$/;

/** Candidates in order of appearance: `<@svc://...>` forms, `@alias:agent` and `@agent`. */
export function mentionCandidates(text: string): string[] {
  const found: { at: number; value: string }[] = [];
  for (const m of text.matchAll(FQID_MENTION)) found.push({ at: m.index!, value: m[1]! });
  const withoutFqids = text.replace(FQID_MENTION, (s) => ' '.repeat(s.length));
  for (const m of withoutFqids.matchAll(TEXT_MENTION)) {
    found.push({ at: m.index!, value: m[2] !== undefined ? `${m[1]}:${m[2]}` : m[1]! });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.value);
}

/** Resolves one candidate (`agent`, `alias:agent` or an agent FQID) to an FQID, or undefined. */
export function resolveCandidate(candidate: string, scope: MentionScope): string | undefined {
  const members = new Set(scope.members);
  const pick = (net: string, id: string) => (members.has(`${net}:${id}`) ? fqid(net, 'agents', id) : undefined);
  const tryOne = (c: string): string | undefined => {
    if (c.startsWith('svc://')) {
      const f = parseFqid(c);
      return f && f.kind === 'agents' ? pick(f.network_id, f.id) : undefined;
    }
    const colon = c.indexOf(':');
    if (colon >= 0) {
      const alias = c.slice(0, colon);
      const net = scope.aliases?.get(alias) ?? alias;
      return pick(net, c.slice(colon + 1));
    }
    const matches = scope.members.filter((m) => m.slice(m.indexOf(':') + 1) === c);
    if (matches.length !== 1) return undefined;
    const m = matches[0]!;
    return fqid(m.slice(0, m.indexOf(':')), 'agents', c);
  };
  const direct = tryOne(candidate);
  if (direct || candidate.startsWith('svc://')) return direct;
  // "@alpha." at the end of a sentence: retry without trailing punctuation.
  const trimmed = candidate.replace(TRAILING, '');
  return trimmed && trimmed !== candidate ? tryOne(trimmed) : undefined;
}

/** The stored `mentions`: FQIDs from text forms and the explicit field, deduplicated, in order. */
export function resolveMentions(texts: readonly string[], explicit: readonly string[], scope: MentionScope): string[] {
  const out: string[] = [];
  const candidates = [...texts.flatMap(mentionCandidates), ...explicit];
  for (const c of candidates) {
    const r = resolveCandidate(c, scope);
    if (r && !out.includes(r)) out.push(r);
  }
  return out;
}
