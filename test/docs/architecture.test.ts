// docs/architecture.md's lists held against the code, as fastify's tests hold its error catalogue
// against its docs: the store's write operations, its reads, the store's refusal codes and the HTTP
// error catalogue, the layers, and every file the document names. Each list is read from the code
// itself: the catalogue and the refusal codes are run-time values; the write ops (a union of
// interfaces) and the reads (an interface's methods) exist only as types, so they are read from
// the TypeScript source, following the union and `extends` wherever their parts live in src/.
// Pure reading: no server.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE } from '../../src/errors.js';
import { STORE_ERROR_CODES } from '../../src/store/types.js';
import { CHECKOUT as ROOT } from '../helpers/server.js';

const test = suite('docs/architecture.md');

const DOC = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');

/** Every file under a folder of the package (relative, forward slashes), node_modules left out. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.parentPath.includes('node_modules'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

// All of src/, not only src/store/: a stored concern's ops may live in a folder of its own.
const SOURCES = filesUnder('src')
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(path.join(ROOT, f), 'utf8'))
  .join('\n');

/** The text of `export type|interface NAME ...` up to its end, from the sources. */
function declaration(kind: 'type' | 'interface', name: string): string {
  const at = new RegExp(`^export ${kind} ${name}\\b`, 'm').exec(SOURCES);
  if (!at) throw new Error(`no ${kind} ${name} in src/`);
  const rest = SOURCES.slice(at.index);
  const end = kind === 'type' ? /;\n/.exec(rest) : /^}/m.exec(rest);
  return rest.slice(0, end!.index + 1);
}

/** The op unions the stored concerns add to PartTypes (each in its ops.ts: `{ op: X; ... }`). */
const partOpUnions = (): string[] => [...SOURCES.matchAll(/^ {4}\w+: \{ op: (\w+);/gm)].map((m) => m[1]!);

/** The `op` names of a union of op interfaces (or of unions of them), as the source declares them. */
function opsOf(union: string): string[] {
  const body = declaration('type', union)
    .replace(/\/\/.*$/gm, '')
    .replace(/^[^=]*=/, '');
  // PartOp is PartTypes' rows, added from each concern's folder.
  if (union === 'PartOp') return partOpUnions().flatMap(opsOfMember);
  return [...body.matchAll(/\b([A-Z]\w*)\b/g)].flatMap(([, member]) => opsOfMember(member!));
}

function opsOfMember(member: string): string[] {
  if (new RegExp(`^export type ${member}\\b`, 'm').test(SOURCES)) return opsOf(member);
  const op = /^\s+op: '([\w.]+)';/m.exec(declaration('interface', member));
  if (!op) throw new Error(`interface ${member} has no literal op`);
  return [op[1]!];
}

/** The method names of an interface and of those it extends. */
function methodsOf(name: string): string[] {
  const decl = declaration('interface', name);
  const bases = /^export interface \w+(?:<[^>]*>)? extends ([^{]+)\{/.exec(decl)?.[1] ?? '';
  const own = [...decl.matchAll(/^ {2}(\w+)\??(?:<[^>]*>)?\(/gm)].map((m) => m[1]!);
  return [...own, ...bases.split(',').flatMap((b) => (b.trim() === '' ? [] : methodsOf(b.trim().replace(/<.*/, ''))))];
}

/** What a Store has besides its reads: the write, the decided write, and its life cycle. */
const NOT_READS = ['write', 'decide', 'sync', 'close'];

/** The lines of a section: from its heading to the next heading of its level or higher. */
function section(md: string, heading: string): string {
  const at = md.split('\n').indexOf(heading);
  if (at < 0) throw new Error(`docs/architecture.md has no heading ${JSON.stringify(heading)}`);
  const level = /^#+/.exec(heading)![0].length;
  const lines = md.split('\n').slice(at + 1);
  const end = lines.findIndex((l) => /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(0, end < 0 ? undefined : end).join('\n');
}

/** A section's table rows, each as its cells (header and separator left out). */
function rowsOf(md: string, heading: string): string[][] {
  return section(md, heading)
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
    .slice(1)
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

/** The name in a table's first cell: `name` or `name(args)`. */
const nameOf = (cell: string): string => /^`([^`(]+)/.exec(cell)?.[1] ?? cell;

/** The names a list has that the other lacks, both ways, for one assertion that says which. */
function drift(what: string, inCode: readonly string[], inDoc: readonly string[]): string[] {
  return [
    ...inCode.filter((n) => !inDoc.includes(n)).map((n) => `${what} ${n}: in the code, not in the document`),
    ...inDoc.filter((n) => !inCode.includes(n)).map((n) => `${what} ${n}: in the document, not in the code`),
  ];
}

test('the write operations are the ops of the WriteOp union, every one', () => {
  const ops = opsOf('WriteOp');
  assert.ok(ops.length >= 16, `read ${ops.length} ops`);
  assert.equal(
    drift(
      'op',
      ops,
      rowsOf(DOC, '### Write operations').map((r) => nameOf(r[0]!)),
    ),
    [],
  );
});

test('the reads are the Store interface methods but write, decide, sync and close', () => {
  const methods = methodsOf('Store');
  for (const m of NOT_READS) assert.ok(methods.includes(m), `Store has no ${m}: update NOT_READS`);
  const reads = methods.filter((m) => !NOT_READS.includes(m));
  // A floor against a parser that finds nothing; stored concerns' reads leave for `part(p)` (#39).
  assert.ok(reads.length >= 20, `read ${reads.length} reads`);
  assert.equal(
    drift(
      'read',
      reads,
      rowsOf(DOC, '### Reads').map((r) => nameOf(r[0]!)),
    ),
    [],
  );
  for (const m of NOT_READS)
    assert.ok(section(DOC, '## The store contract (`src/store/types.ts`)').match(new RegExp(`\\b${m}\\(`)), `${m} is not named`);
});

test("the store's refusal codes are StoreError's codes, each with the HTTP code it becomes", () => {
  const rows = rowsOf(DOC, '### Refusals');
  assert.equal(
    drift(
      'store code',
      STORE_ERROR_CODES,
      rows.map((r) => nameOf(r[0]!)),
    ),
    [],
  );
  for (const r of rows) {
    const http = /`(\w+)` \d{3}/.exec(r[r.length - 1]!);
    assert.ok(http && http[1]! in CATALOGUE, `${r[0]}: the last cell names no catalogue code and status: ${r[r.length - 1]}`);
  }
});

test('the error catalogue is src/errors.ts, code by code, with each status', () => {
  const rows = rowsOf(DOC, '### The HTTP error catalogue');
  assert.equal(
    drift(
      'error code',
      Object.keys(CATALOGUE),
      rows.map((r) => nameOf(r[0]!)),
    ),
    [],
  );
  const wrong = rows
    .filter((r) => nameOf(r[0]!) in CATALOGUE && CATALOGUE[nameOf(r[0]!) as keyof typeof CATALOGUE].status !== Number(r[1]))
    .map((r) => `${r[0]}: ${r[1]}`);
  assert.equal(wrong, []);
});

test('the layers are those scripts/check-imports.mjs judges, and place every part of src/', () => {
  const script = readFileSync(path.join(ROOT, 'scripts', 'check-imports.mjs'), 'utf8');
  const table = /^const LAYERS = \[([\s\S]*?)^\];/m.exec(script)?.[1];
  assert.ok(table, 'no LAYERS table in scripts/check-imports.mjs');
  const inScript = [...table.matchAll(/\[\s*'([\w-]+)',\s*\[([^\]]*)\]/g)].map(([, name, paths]) => ({
    name: name!,
    paths: [...paths!.matchAll(/'src\/([^']+)'/g)].map((m) => m[1]!),
  }));
  const inDoc = rowsOf(DOC, '### Layers').map(([name, files]) => ({
    name: name!.replace(/ /g, '-'),
    paths: [...files!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
  }));
  assert.equal(
    inDoc.map((l) => l.name),
    inScript.map((l) => l.name),
    'the layers, lowest first',
  );
  const problems = inScript.flatMap((l, i) => drift(`layer ${l.name}:`, l.paths, inDoc[i]?.paths ?? []));
  const named = inDoc.flatMap((l) => l.paths);
  for (const p of named) if (!existsSync(path.join(ROOT, 'src', p))) problems.push(`src/${p}: named as a layer's part, does not exist`);
  for (const e of readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })) {
    const entry = e.isDirectory() ? `${e.name}/` : e.name;
    if (!named.includes(entry)) problems.push(`src/${entry}: in no layer of the document`);
  }
  assert.equal(problems, []);
});

test('every file the document names exists', () => {
  const all = ['src', 'test', 'bench', 'scripts', 'schemas', 'templates', 'bin'].flatMap(filesUnder);
  const folders = new Set(
    all.flatMap((f) =>
      f
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => `${parts.slice(0, i + 1).join('/')}/`),
    ),
  );
  const exists = (p: string) => all.includes(p) || folders.has(p) || folders.has(`${p}/`);
  // Relative names (`postgres/tentative.ts`, `client/index.ts`, an import's `types.js`) need only
  // name the end of a real path; names from the package root must be exact.
  const endsSome = (p: string) => {
    const ts = p.replace(/\.js$/, '.ts');
    return [...all, ...folders].some((f) => f === ts || f.endsWith(`/${ts}`) || f === p || f.endsWith(`/${p}`));
  };
  const rooted = /^(src|test|bench|scripts|schemas|templates|bin)\//;
  const named = new Set<string>();
  for (const m of DOC.matchAll(/(?:^|[\s`(])((?:src|test|bench|scripts|schemas|templates|bin)\/[\w./-]*)/gm))
    named.add(m[1]!.replace(/[.,]$/, ''));
  // A bare `x.js` is a package (sql.js) or an import specifier; dist/ and node_modules/ are built.
  for (const m of DOC.matchAll(/`([\w./-]+\/|[\w./-]*\.(?:ts|mjs)|[\w.-]+\/[\w./-]*\.js)`/g))
    if (!/^(dist|node_modules)\//.test(m[1]!)) named.add(m[1]!);
  const missing = [...named].filter((p) => !(rooted.test(p) ? exists(p) : endsSome(p)));
  assert.ok(named.size > 40, `found ${named.size} names`);
  assert.equal(missing, []);
});

test('receipts, reactions and webhooks are each named in at most 12 source files outside their folders', () => {
  // A concern that spreads back over the house shows here first (docs/architecture.md, "Where a new
  // stored concern goes"): its folders are src/<concern>s/ and src/store/<concern>s/.
  const sources = filesUnder('src').filter((f) => f.endsWith('.ts'));
  for (const word of ['receipt', 'reaction', 'webhook']) {
    const own = new RegExp(`^src/(store/)?${word}s/`);
    const outside = sources.filter((f) => !own.test(f) && readFileSync(path.join(ROOT, f), 'utf8').toLowerCase().includes(word));
    assert.ok(outside.length <= 12, `${word}s are named in ${outside.length} files outside their folders:\n${outside.join('\n')}`);
  }
});

test('the checker reports a name on one side only, and reads a table as written', () => {
  assert.equal(drift('op', ['a.b', 'c.d'], ['a.b']), ['op c.d: in the code, not in the document']);
  assert.equal(drift('op', ['a.b'], ['a.b', 'x.y']), ['op x.y: in the document, not in the code']);
  assert.equal(rowsOf('## T\n\n| op | what |\n| --- | --- |\n| `a.b` | x |\n## U\n| `c.d` | y |\n', '## T'), [['`a.b`', 'x']]);
  assert.is(nameOf('`pageRooms(filter, page)`'), 'pageRooms');
});

test.run();
