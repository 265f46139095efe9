// The page hook (src/store/sqlite/page-hook.ts) names minified wasm imports of one sql.js build.
// package.json pins that build exactly; this fails when the installed build is another one or the
// hook's self-test does not see its probe write (checkpoints would quietly write whole images).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canTrackPages } from '../../../src/store/sqlite/engine/page-hook.js';
import { loadSql, pageTrackingProblem } from '../../../src/store/sqlite/engine/image.js';
import { engineCheck } from '../../../src/cli/commands/doctor/run.js';
import { ROOT } from '../../helpers/server.js';

const t = suite('the pinned sql.js build');

t('package.json pins sql.js to the exact version that is installed', () => {
  const pinned = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies['sql.js'];
  assert.match(pinned!, /^\d+\.\d+\.\d+$/, `sql.js must be pinned to one version, not ${pinned}`);
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  const installed = (JSON.parse(readFileSync(path.join(path.dirname(wasm), '..', 'package.json'), 'utf8')) as { version: string }).version;
  assert.is(installed, pinned);
});

t('the page hook knows the installed build and sees its probe write', async () => {
  await loadSql();
  assert.is(pageTrackingProblem(), undefined);
  assert.ok(canTrackPages());
});

t('svc doctor warns, with the fix, when a sqlite store runs without page tracking', () => {
  assert.equal(
    engineCheck({
      backend: 'sqlite',
      page_tracking: false,
      on_demand_reads: false,
      problem: 'the installed sql.js build is not one the page hook knows',
    }),
    {
      check: 'store engine',
      status: 'warn',
      message:
        'sqlite: checkpoints write the whole database and load it whole (the installed sql.js build is not one the page hook knows): reinstall svc with its locked dependencies (npm ci)',
    },
  );
  assert.is(engineCheck({ backend: 'sqlite', page_tracking: true, on_demand_reads: false }).status, 'ok');
});

t.run();
