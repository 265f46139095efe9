// Export from a memory store (#40 part 5): read whole in one go while the server runs, and
// imported into a sqlite store it serves the same reads. A memory config is no import target.
// The servers run in the test process; the CLI finds them by their runtime files.

import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { tempDir, testConfig, writeConfig } from '../helpers/server.js';
import { comparable, CONFIG, exportTo, fill, reads } from './fixture.js';

const t = suite('svc export of a memory store');

t('a memory network exported and imported into sqlite serves the same reads and exports the same lines', async () => {
  const mem = await startApp({ config: { ...CONFIG, store: { backend: 'memory' } } });
  const work = tempDir();
  let lines: string[];
  let before: unknown;
  try {
    await fill(mem);
    before = await reads(mem);
    lines = await exportTo(mem.configFile, path.join(work, 'mem.jsonl'), ['--with-secrets']);
    const refused = await cli(['import', path.join(work, 'mem.jsonl'), '--config', mem.configFile]);
    assert.is(refused.code, 1);
    assert.match(
      refused.stderr,
      /^svc import: the configured store is memory, which keeps nothing: import into a sqlite or Postgres store\n$/,
    );
  } finally {
    await mem.dispose();
  }
  const dir = tempDir();
  const config = writeConfig(dir, testConfig(CONFIG));
  const r = await cli(['import', path.join(work, 'mem.jsonl'), '--config', config]);
  assert.is(r.code, 0, r.stderr);
  const lite = await startApp({ dir, config: CONFIG });
  try {
    assert.equal(await reads(lite), before);
    assert.equal(comparable(await exportTo(lite.configFile, path.join(work, 'lite.jsonl'), ['--with-secrets'])), comparable(lines));
  } finally {
    await lite.dispose();
  }
});

t.run();
