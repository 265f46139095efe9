// The console's event-type list is the server's (issue 39 part 5): live.js names no type itself,
// it imports /console/event-types.js, which the server writes from src/protocol/types.ts. The
// server runs in process on a memory store; the console's files are read over HTTP as a browser
// would, from the entry script down through every relative import, so the console still loads
// without a build step.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import type { App } from '../../src/feature.js';
import { defaultFeatures } from '../../src/features.js';
import { silentLogger } from '../../src/log.js';
import { EVENT_TYPES } from '../../src/protocol/types.js';

interface Ctx {
  app: App;
  url: string;
}

const t = suite<Ctx>('the console gets its event types from the server');

t.before(async (c) => {
  const loaded = parseConfig(
    { network: { id: 'home' }, store: { backend: 'memory' }, server: { listen_addr: '127.0.0.1:0' } },
    { baseDir: process.cwd(), env: {} },
  );
  c.app = await createApp(loaded, { log: silentLogger, features: defaultFeatures });
  const { port } = await c.app.listen();
  c.url = `http://127.0.0.1:${port}`;
});

t.after(async (c) => {
  await c.app?.close();
});

async function get(c: Ctx, file: string): Promise<{ status: number; type: string | null; text: string }> {
  const r = await fetch(`${c.url}/console/${file}`);
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

const RELATIVE_IMPORT = /\bimport\s+(?:[\w*${}\s,]*?\s+from\s+)?['"]\.\/([^'"]+)['"]|\bimport\(\s*['"]\.\/([^'"]+)['"]\s*\)/g;

t('/console/event-types.js is the protocol list, as a module the browser can import', async (c) => {
  const r = await get(c, 'event-types.js');
  assert.is(r.status, 200, r.text);
  assert.is(r.type, 'text/javascript; charset=utf-8');
  const served = (await import(`data:text/javascript,${encodeURIComponent(r.text)}`)) as { EVENT_TYPES: unknown };
  assert.equal(served.EVENT_TYPES, [...EVENT_TYPES]);
});

t('live.js follows the served list and names no event type of its own', async (c) => {
  const r = await get(c, 'live.js');
  assert.is(r.status, 200, r.text);
  const imports = [...r.text.matchAll(RELATIVE_IMPORT)].map((m) => m[1] ?? m[2]);
  assert.ok(imports.includes('event-types.js'), `live.js imports ${imports.join(', ')}`);
  for (const type of EVENT_TYPES) assert.not.ok(r.text.includes(`'${type}'`), `live.js names '${type}' itself`);
});

t('every script the console imports from app.js is served', async (c) => {
  const seen = new Set<string>();
  const queue = ['app.js'];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const r = await get(c, file);
    assert.is(r.status, 200, `/console/${file}: ${r.status}`);
    for (const m of r.text.matchAll(RELATIVE_IMPORT)) queue.push(m[1] ?? m[2]!);
  }
  assert.ok(seen.has('live.js') && seen.has('event-types.js'), [...seen].join(', '));
});

t.run();
