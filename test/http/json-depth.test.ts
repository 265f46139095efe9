// A deeply nested JSON body is refused by a linear scan before it is parsed, so a hostile body costs
// the server no more than a flat one of the same size.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApp, type AppServer } from '../helpers/app.js';

const test = suite<{ s: AppServer }>('JSON depth before parse');
test.before(async (ctx) => {
  ctx.s = await startApp({ config: { auth: { agent_registration: 'open' } } });
});
test.after(async (ctx) => ctx.s.dispose());

const nested = '['.repeat(5e5) + ']'.repeat(5e5);
const flat = JSON.stringify({ name: 'x'.repeat(1_000_000 - 20) });

async function timed(s: AppServer, body: string, n: number): Promise<{ ms: number; statuses: number[]; errors: string[] }> {
  const t0 = process.hrtime.bigint();
  const statuses: number[] = [];
  const errors: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await s.req('POST', '/v1/agents/register', { raw: body, headers: { 'content-type': 'application/json' } });
    statuses.push(r.status);
    errors.push(String(r.body?.error?.message ?? r.body?.message ?? r.text).slice(0, 200));
  }
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, statuses, errors };
}

test('a half-million-level body gets the depth 400 and costs about what a flat 1 MiB body does', async ({ s }) => {
  await timed(s, flat, 2); // warm up
  const f = await timed(s, flat, 20);
  const d = await timed(s, nested, 20);
  assert.ok(
    d.statuses.every((x) => x === 400),
    String(d.statuses),
  );
  assert.ok(
    d.errors.every((e) => /deeper than 128 levels/.test(e)),
    d.errors[0],
  );
  assert.ok(d.ms <= 3 * f.ms + 200, `nested ${d.ms.toFixed(0)} ms vs flat ${f.ms.toFixed(0)} ms`);
});

test.run();
