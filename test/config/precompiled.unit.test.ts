// The schema validators a build generates (src/precompiled.ts) answer exactly as the ones compiled
// at run time: same verdicts, same errors, same defaults filled in. A generated module made from
// other schemas is never used.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CONFIG_SCHEMAS } from '../../src/config/schema.js';
import { hashOf, type SchemaSet, validatorsOf, writePrecompiled } from '../../src/precompiled.js';
import { REQUEST_SCHEMAS } from '../../src/schemas.js';

const t = suite<{ dir: URL; folder: string }>('precompiled schema validators');
t.before((ctx) => {
  // Inside the package, as a build is: the generated code imports ajv's runtime helpers.
  const artifacts = path.join(import.meta.dirname, '..', '.artifacts');
  mkdirSync(artifacts, { recursive: true });
  ctx.folder = mkdtempSync(path.join(artifacts, 'precompiled-'));
  ctx.dir = pathToFileURL(`${ctx.folder}/`);
});
t.after((ctx) => rmSync(ctx.folder, { recursive: true, force: true }));

/** Runs `name` of both sets on a copy of `value`: verdict, errors (without the schema objects) and the value after defaults. */
async function both(set: SchemaSet, dir: URL, name: string, value: unknown) {
  const built = await validatorsOf(set, dir);
  const compiled = await validatorsOf(set, new URL('file:///nonexistent/'));
  assert.is(built.from, 'build');
  assert.is(compiled.from, 'compiled');
  const run = (v: typeof built.validators) => {
    const copy = structuredClone(value);
    const fn = v[name]!;
    const ok = fn(copy);
    const errors = (fn.errors ?? []).map(({ schema: _s, parentSchema: _p, ...e }) => e);
    return { ok, errors: ok ? [] : errors, copy };
  };
  return { built: run(built.validators), compiled: run(compiled.validators) };
}

t('config files: the generated validator gives the same verdicts, errors and defaults', async ({ dir }) => {
  await writePrecompiled(CONFIG_SCHEMAS, dir);
  const samples: unknown[] = [
    { network: { id: 'home' } },
    { network: { id: 'home' }, server: { listen_addr: 5 } },
    { network: { id: 'bad id!' }, auth: { mode: 'nope', tokens: [{ value: 'x', scopes: ['admin', 'fly'] }] } },
    { network: { id: 'home' }, rooms: [{ id: 'general', visibility: 'public' }], unknown_key: 1 },
    { server: {} },
  ];
  for (const sample of samples) {
    const r = await both(CONFIG_SCHEMAS, dir, 'validateConfig', sample);
    assert.equal(r.built, r.compiled, JSON.stringify(sample));
  }
  const pairings = await both(CONFIG_SCHEMAS, dir, 'validatePairingList', [{ id: 'p' }, 5]);
  assert.equal(pairings.built, pairings.compiled);
  assert.is(pairings.built.ok, false);
});

t('request bodies: the generated validators give the same answers as compiled ones', async ({ dir }) => {
  await writePrecompiled(REQUEST_SCHEMAS, dir);
  const sends: unknown[] = [
    { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'hi' }] },
    { target: { kind: 'room' }, parts: [{ kind: 'nope' }] },
    { target: { kind: 'dm', participants: ['a'] }, parts: [] },
  ];
  for (const sample of sends) {
    const r = await both(REQUEST_SCHEMAS, dir, 'send_message', sample);
    assert.equal(r.built, r.compiled, JSON.stringify(sample));
  }
  const room = await both(REQUEST_SCHEMAS, dir, 'create_room', { id: 'ops', members: ['a', 1] });
  assert.equal(room.built, room.compiled);
});

t('a generated module made from other schemas is not used', async ({ dir }) => {
  await writePrecompiled(CONFIG_SCHEMAS, dir);
  const edited: SchemaSet = {
    ...CONFIG_SCHEMAS,
    schemas: [{ ...CONFIG_SCHEMAS.schemas[0]!, title: 'edited' }, CONFIG_SCHEMAS.schemas[1]!],
  };
  assert.is.not(hashOf(edited), hashOf(CONFIG_SCHEMAS));
  assert.is((await validatorsOf(edited, dir)).from, 'compiled');
  assert.is((await validatorsOf(CONFIG_SCHEMAS, dir)).from, 'build');
});

t.run();
