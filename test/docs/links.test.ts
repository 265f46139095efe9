// Links in README.md, CONTRIBUTING.md and docs/*.md: every relative link names an existing file,
// every #anchor an existing heading (GitHub's slug rules), and external links are well-formed URLs
// (checked for syntax only: tests use no network). A section named in prose rather than linked
// must exist too: `agents.md, "Connect a remote agent"` names a heading of that file, and a bare
// `(see Mentions)` is refused (it pointed at no section: write it as a link, which is checked).
// No document names the project's internal spec, contract or style files: readers do not have them.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/server.js';

const test = suite('documentation links');

/** The text of a Markdown file without fenced code blocks and inline code (links there are not links). */
function prose(md: string): string {
  return md.replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading's text: lower case, tags and punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** GitHub's anchor for each heading (see slug); repeats get -1, -2. */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The link targets of a Markdown file: inline links and images, and reference definitions. */
export function linksOf(md: string): string[] {
  const text = prose(md);
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const refs = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!);
  return [...inline, ...refs];
}

/**
 * The problems of the sections `from` names in prose: `FILE.md, "Heading"` (or `[..](FILE.md),
 * "Heading"`) whose heading FILE lacks, and `(see Name)` with no link.
 */
export function sectionProblems(from: string, md: string): string[] {
  const text = md.replace(/^(```|~~~)[\s\S]*?^\1\s*$/gm, '');
  const problems: string[] = [];
  for (const m of text.matchAll(/\(see ([A-Z][^()[\]`]*)\)/g)) problems.push(`(see ${m[1]}) names a section without a link`);
  for (const m of text.matchAll(/([\w./-]+\.md)(?:\]\([^)\s]+\))?,\s+"([^"\n]+)"/g)) {
    const file = path.resolve(path.dirname(path.join(ROOT, from)), m[1]!);
    const named = existsSync(file) ? file : path.join(ROOT, 'docs', path.basename(m[1]!));
    if (!existsSync(named)) problems.push(`${m[1]}, "${m[2]}": no file ${m[1]}`);
    else if (!anchorsOf(readFileSync(named, 'utf8')).has(slug(m[2]!)))
      problems.push(`${m[1]}, "${m[2]}": no such heading in ${path.relative(ROOT, named)}`);
  }
  return problems;
}

function docFiles(): string[] {
  const files = ['README.md', 'CONTRIBUTING.md'].filter((f) => existsSync(path.join(ROOT, f)));
  for (const f of readdirSync(path.join(ROOT, 'docs'))) if (f.endsWith('.md')) files.push(`docs/${f}`);
  return files;
}

/** The problems of one link found in `from` (a path relative to the package root); empty when it is good. */
export function linkProblem(from: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    if (!/^(https?|mailto):/i.test(target)) return undefined;
    if (/^mailto:/i.test(target)) return undefined;
    try {
      const u = new URL(target);
      return u.hostname === '' ? 'an http link without a host' : undefined;
    } catch {
      return 'not a valid URL';
    }
  }
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? path.join(ROOT, from) : path.resolve(path.dirname(path.join(ROOT, from)), decodeURIComponent(file));
  if (!existsSync(resolved)) return `no file ${path.relative(ROOT, resolved)}`;
  if (anchor !== undefined && anchor !== '') {
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return undefined;
    if (!anchorsOf(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor).toLowerCase()))
      return `no heading #${anchor} in ${path.relative(ROOT, resolved)}`;
  }
  return undefined;
}

test('every link of the README, CONTRIBUTING.md and docs/ points at a file and heading that exist', () => {
  const problems: string[] = [];
  for (const f of docFiles()) {
    for (const target of linksOf(readFileSync(path.join(ROOT, f), 'utf8'))) {
      const p = linkProblem(f, target);
      if (p !== undefined) problems.push(`${f}: (${target}) ${p}`);
    }
  }
  assert.equal(problems, []);
});

test('a section named in prose exists, and none is named without a link', () => {
  const problems: string[] = [];
  for (const f of docFiles()) for (const p of sectionProblems(f, readFileSync(path.join(ROOT, f), 'utf8'))) problems.push(`${f}: ${p}`);
  assert.equal(problems, []);
});

test('no document sends its reader to the spec, contract or style files, which the package does not have', () => {
  const named: string[] = [];
  for (const f of docFiles()) {
    const lines = readFileSync(path.join(ROOT, f), 'utf8').split('\n');
    lines.forEach((l, i) => {
      if (/\b(SPEC|CONTRACT|STYLE)\.md\b/.test(l)) named.push(`${f}:${i + 1}: ${l.trim()}`);
    });
  }
  assert.equal(named, []);
});

test('the section checker refuses a bare (see Name) and a quoted heading the file lacks', () => {
  assert.is(sectionProblems('docs/agents.md', 'resolves against members (see Mentions), so').length, 1);
  assert.is(sectionProblems('docs/http-api.md', 'See [agents.md](agents.md), "No such section".').length, 1);
  assert.is(sectionProblems('docs/http-api.md', 'See [agents.md](agents.md), "Connect a remote agent".').length, 0);
  assert.is(sectionProblems('CONTRIBUTING.md', '(docs/architecture.md, "Start-up time of a command")').length, 0);
});

test('the checker itself refuses a missing file, a missing heading and a malformed URL', () => {
  assert.ok(linkProblem('README.md', 'docs/no-such-file.md') !== undefined);
  assert.ok(linkProblem('README.md', 'docs/cli.md#no-such-heading') !== undefined);
  assert.ok(linkProblem('README.md', 'http://') !== undefined);
  assert.is(linkProblem('README.md', 'docs/live.md#session-keys'), undefined);
  assert.is(linkProblem('docs/cli.md', '../README.md#a-first-session'), undefined);
});

test('anchors follow GitHub: punctuation dropped, spaces to hyphens, repeats numbered', () => {
  const a = anchorsOf('# The `svc/client` library\n## Postgres: several instances, one network\n## Choices\n## Choices\n');
  assert.ok(a.has('the-svcclient-library'));
  assert.ok(a.has('postgres-several-instances-one-network'));
  assert.ok(a.has('choices') && a.has('choices-1'));
});

test.run();
