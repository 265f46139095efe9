// `svc read --receipts`: the sender's (or an admin's) view of who got and who read each message.
// svc read runs as a process against the app in the test process.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, TOKENS, type Json } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';
import { attachAs } from '../helpers/live.js';
import { cli } from '../helpers/cli.js';
import { claimThenJoin } from '../helpers/claim.js';

const ADMIN: string = TOKENS.admin.value;

test('svc read --receipts shows delivered, then read, per reader; --json adds them to each message', async () => {
  const s = await startApp({
    // ann joins general once claimed: a declared member's id is reserved for the operator's credentials.
    config: { auth: { mode: 'open', agent_registration: 'open' }, rooms: [{ id: 'general', members: [] }] },
  });
  try {
    const annToken = (await claimThenJoin(s, 'ann', ['general'])).body.agent_token as string;
    const bob = await s.req('PATCH', '/v1/rooms/general/members', { token: ADMIN, body: { add: ['bob'] } });
    assert.is(bob.status, 200, bob.text);
    const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'ann' } }, { token: annToken });
    const sent = await s.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'general' }, from: { type: 'human', id: 'op' }, parts: [{ kind: 'text', text: 'status?' }] },
      ADMIN,
    );
    assert.is(sent.status, 200);
    c.ack((await c.message('status?')).cursor);
    const read = (token: string, ...more: string[]) =>
      cli(['read', '--room', 'general', '--url', s.url, '--token', token, ...more], { cwd: s.dir });
    const shown = await eventually(async () => {
      const r = await read(ADMIN, '--receipts');
      return r.stdout.includes('ann delivered') ? r : undefined;
    });
    assert.is(shown!.code, 0, shown!.stderr);
    assert.match(shown!.stdout, /RECEIPTS/);
    assert.match(shown!.stdout, 'bob pending');
    // ann reads with its own token: that read is its receipt.
    assert.is((await read(annToken)).code, 0);
    const after = await eventually(async () => {
      const r = await read(ADMIN, '--receipts', '--json');
      const m = (JSON.parse(r.stdout).messages as Json[]).find((x) => x.id === sent.body.message_id);
      return m?.receipts?.find((x: Json) => x.reader.id === 'ann')?.state === 'read' ? m : undefined;
    });
    assert.equal(
      after!.receipts.map((x: Json) => [x.reader.id, x.state]),
      [
        ['ann', 'read'],
        ['bob', 'pending'],
      ],
    );
    // Another agent's view: no receipts of a message it did not send.
    const other = await read(annToken, '--receipts');
    assert.is(other.code, 0, other.stderr);
    assert.match(other.stdout, /status\?\s+-/);
    await c.close();
  } finally {
    await s.dispose();
  }
});

test.run();
