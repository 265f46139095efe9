// `npm run lint:imports` (scripts/check-imports.mjs): it passes on this tree and fails on a cycle of
// files, a cycle of folders, an import up a layer, and a src/ folder the layer table does not place. The failing trees are
// small copies with the script beside them (no node_modules there, so its own cycle walk runs).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = path.join(REPO, 'scripts', 'check-imports.mjs');

const test = suite('lint:imports');

function run(script: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A throwaway tree holding the script and the given files; removed after fn. */
function withTree(files: Record<string, string>, fn: (script: string) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-imports-'));
  try {
    mkdirSync(path.join(dir, 'scripts'));
    copyFileSync(SCRIPT, path.join(dir, 'scripts', 'check-imports.mjs'));
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
    fn(path.join(dir, 'scripts', 'check-imports.mjs'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the source tree has no import cycle and no import up a layer', () => {
  const r = run(SCRIPT);
  assert.is(r.status, 0, r.out);
  assert.match(r.out, /no import cycle, no import up a layer/);
});

test('a cycle between two files fails the check and names both files', () => {
  withTree(
    {
      'src/cli/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/cli/b.ts': "import type { a } from './a.js';\nexport const b = 1;\nexport type A = typeof a;\n",
    },
    (script) => {
      const r = run(script);
      assert.is(r.status, 1, r.out);
      assert.match(r.out, 'import cycle of 2 files: src/cli/a.ts, src/cli/b.ts');
    },
  );
});

test("a cycle among the console's browser scripts fails the check", () => {
  withTree(
    {
      'templates/console/one.js': "import { two } from './two.js';\nexport const one = () => two();\n",
      'templates/console/two.js': "import { one } from './one.js';\nexport const two = () => one;\n",
    },
    (script) => {
      const r = run(script);
      assert.is(r.status, 1, r.out);
      assert.match(r.out, 'templates/console/one.js, templates/console/two.js');
    },
  );
});

test('an import from a lower layer to a higher one fails the check', () => {
  withTree(
    {
      'src/store/read.ts': "import { FEATURES } from '../features.js';\nexport const n = FEATURES.length;\n",
      'src/features.ts': 'export const FEATURES = [];\n',
    },
    (script) => {
      const r = run(script);
      assert.is(r.status, 1, r.out);
      assert.match(r.out, 'src/store/ -> src/features.ts: up from layer store to layer app:\n  src/store/read.ts -> src/features.ts');
    },
  );
});

test('two folders that import each other fail the check, though no two files do, and the loop is named file by file', () => {
  withTree(
    {
      'src/console/pages.ts': "import { skill } from '../discovery/skill.js';\nexport const page = skill;\n",
      'src/console/cookies.ts': 'export const cookie = 1;\n',
      'src/discovery/skill.ts': 'export const skill = 1;\n',
      'src/discovery/login.ts': "import { cookie } from '../console/cookies.js';\nexport const login = cookie;\n",
    },
    (script) => {
      const r = run(script);
      assert.is(r.status, 1, r.out);
      assert.not.match(r.out, 'import cycle of');
      assert.match(r.out, 'folder cycle among src/console/, src/discovery/');
      assert.match(r.out, '  src/console/ -> src/discovery/\n    src/console/pages.ts -> src/discovery/skill.ts');
      assert.match(r.out, '  src/discovery/ -> src/console/\n    src/discovery/login.ts -> src/console/cookies.ts');
    },
  );
});

test('a folder stands on one layer: a feature entry beside the service it wraps ties the two layers in a loop', () => {
  withTree(
    {
      'src/feature.ts': "import type { Hub } from './live/hub.js';\nexport type F = (h: Hub) => void;\n",
      'src/live/hub.ts': 'export interface Hub { n: number }\n',
      'src/live/feature.ts': "import type { F } from '../feature.js';\nexport const live: F = () => {};\n",
    },
    (script) => {
      const r = run(script);
      assert.is(r.status, 1, r.out);
      assert.match(
        r.out,
        'src/feature.ts -> src/live/: up from layer feature-contract to layer features:\n  src/feature.ts -> src/live/hub.ts',
      );
    },
  );
});

test('a src/ folder outside the layer table fails the check', () => {
  withTree({ 'src/newfolder/x.ts': 'export const x = 1;\n' }, (script) => {
    const r = run(script);
    assert.is(r.status, 1, r.out);
    assert.match(r.out, 'src/newfolder/: no layer');
  });
});

test.run();
