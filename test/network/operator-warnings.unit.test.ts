// The pure parts of the operator warnings and refused-relay counts, with exact values.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installedVersion, migrationWarning, staleServerWarning } from '../../src/network/operator-warnings.js';
import { protocolWarnings, refusalWarnings } from '../../src/pairing/warnings.js';
import { RECENT_REFUSALS, RefusalTally, refusalFix, refusalReason } from '../../src/pairing/refusals.js';
import { refusalCheck } from '../../src/cli/commands/doctor/run.js';
import { refusedSummary } from '../../src/cli/commands/invite/list.js';
import type { Message, Pairing } from '../../src/protocol/types.js';

const roomMsg = (room: string, from = 'alpha'): Pick<Message, 'from' | 'target'> => ({
  from: { type: 'agent', id: from, network_id: 'alpha-net' } as Message['from'],
  target: { kind: 'room', room_id: room } as Message['target'],
});
const facts = (error: string, message = roomMsg('general')) => ({
  remote: 'beta-net',
  localNetworkId: 'alpha-net',
  pairingId: 'ab',
  message,
  error,
});

const t = suite('refused relays and operator warnings');

t('the reason is the remote error code, else http_<status>', () => {
  assert.is(refusalReason(403, { error: 'x', code: 'forbidden' }), 'forbidden');
  assert.is(refusalReason(404, { code: 'not_found' }), 'not_found');
  assert.is(refusalReason(409, 'text'), 'http_409');
  assert.is(refusalReason(400, { code: 'Bad Code With Spaces' }), 'http_400');
});

t('the fix names the command on the other side when the refusal says which', () => {
  assert.is(
    refusalFix(facts('alpha-net:alpha is not a member of room general (write_policy: members)')),
    'on beta-net: svc rooms members general --add alpha-net:alpha',
  );
  assert.is(
    refusalFix(facts('room general does not federate with pairing ab (rooms[].federation.pairings)')),
    'on beta-net: add ab to rooms[].federation.pairings of room general in svc.yaml',
  );
  assert.is(refusalFix(facts('room general not found')), 'on beta-net: create room general with federation.pairings [ab] in svc.yaml');
  const dm = {
    from: { type: 'agent', id: 'alpha', network_id: 'alpha-net' },
    target: { kind: 'dm', dm_id: 'd', participant_ids: ['alpha', 'beta-net:beta'] },
  } as unknown as Pick<Message, 'from' | 'target'>;
  assert.is(refusalFix(facts('direct messages are off on this server', dm)), 'on beta-net: turn on server.direct_messages');
  assert.is(refusalFix(facts('something else')), 'on beta-net: see its log for the refusal of this message (something else)');
});

t('the tally counts by reason and keeps the newest few ids first', () => {
  const tally = new RefusalTally();
  assert.is(tally.view(), undefined);
  for (let i = 1; i <= RECENT_REFUSALS + 2; i++)
    tally.record({ message_id: `m${i}`, reason: i % 2 ? 'forbidden' : 'not_found', status: i % 2 ? 403 : 404, at: 't', fix: 'f' });
  const v = tally.view()!;
  assert.is(v.total, 7);
  assert.equal(v.by_reason, { forbidden: 4, not_found: 3 });
  assert.equal(
    v.recent.map((r) => r.message_id),
    ['m7', 'm6', 'm5', 'm4', 'm3'],
  );
});

const refusing: Pairing = {
  id: 'ab',
  remote_network_id: 'beta-net',
  remote_network_name: 'Beta',
  remote_base_url: '',
  status: 'connected',
  refused: {
    total: 2,
    by_reason: { forbidden: 2 },
    recent: [
      {
        message_id: 'm2',
        reason: 'forbidden',
        status: 403,
        room_id: 'general',
        at: 't',
        fix: 'on beta-net: svc rooms members general --add alpha-net:alpha',
      },
      { message_id: 'm1', reason: 'forbidden', status: 403, at: 't', fix: 'x' },
    ],
  },
};

t('a refusing pairing makes one warning, one doctor line and a listing summary', () => {
  assert.equal(refusalWarnings([refusing, { ...refusing, id: 'quiet', refused: undefined }]), [
    {
      severity: 'warning',
      code: 'relay_refused',
      message: 'pairing ab: 2 relayed messages refused by beta-net (2 forbidden; last m2, m1); they are not retried',
      action: 'on beta-net: svc rooms members general --add alpha-net:alpha',
      docs_url: 'docs/warnings.md#relay-refused',
    },
  ]);
  assert.equal(refusalCheck(refusing, 'beta-net'), {
    check: 'pairing ab refusals',
    status: 'warn',
    message:
      'beta-net refused 2 relayed messages (2 forbidden; last: m2, m1), not retried; fix on beta-net: svc rooms members general --add alpha-net:alpha',
  });
  assert.is(refusedSummary(refusing), '2 (2 forbidden)');
  assert.is(refusedSummary({ ...refusing, refused: undefined }), '-');
});

t('unsupported-protocol is raised only for an incompatible peer on another protocol', () => {
  const base = { id: 'p', remote_network_id: 'old', status: 'incompatible' as const };
  const w = protocolWarnings([
    {
      ...base,
      diagnostics: {
        reason: 'unsupported_pair_protocol',
        remote_version: '0.0.9',
        remote_protocols: { http: ['service.http.v1'], pair: ['service.pair.v0'] },
      },
    },
  ]);
  assert.is(w.length, 1);
  assert.equal([w[0]!.severity, w[0]!.code], ['error', 'unsupported-protocol']);
  assert.is(
    w[0]!.message,
    'pairing p: old (svc 0.0.9) speaks service.http.v1, service.pair.v0; this server speaks service.http.v1, service.pair.v1. Nothing is relayed to it',
  );
  assert.equal(protocolWarnings([{ ...base, diagnostics: { reason: 'network_id_mismatch' } }]), []);
  assert.equal(protocolWarnings([{ ...base, status: 'connected', diagnostics: { reason: 'unsupported_pair_protocol' } }]), []);
});

t('stale-running-server only when the installed version differs', () => {
  assert.equal(staleServerWarning('1.0.0', '1.0.0'), []);
  assert.equal(staleServerWarning('1.0.0', undefined), []);
  const [w] = staleServerWarning('1.0.0', '1.1.0');
  assert.equal([w!.code, w!.severity, w!.docs_url], ['stale-running-server', 'warning', 'docs/warnings.md#stale-running-server']);
  assert.is(
    w!.message,
    'this server runs svc 1.0.0, and svc 1.1.0 is installed now where it was started from: the running process still has the old code',
  );
});

t('the installed version is read from the file as it is now', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-pkg-'));
  try {
    const file = path.join(dir, 'package.json');
    writeFileSync(file, JSON.stringify({ version: '2.0.0' }));
    assert.is(installedVersion(file), '2.0.0');
    writeFileSync(file, JSON.stringify({ version: '2.0.1' }));
    assert.is(installedVersion(file), '2.0.1');
    writeFileSync(file, 'not json');
    assert.is(installedVersion(file), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('migration-risk names the schema versions and the svc that migrated', () => {
  assert.equal(migrationWarning(undefined), []);
  const [w] = migrationWarning({ from: 3, to: 4, by: '0.2.0' });
  assert.equal([w!.code, w!.severity, w!.docs_url], ['migration-risk', 'warning', 'docs/warnings.md#migration-risk']);
  assert.is(w!.message, 'this start migrated the store from schema version 3 to 4 (svc 0.2.0); an older svc refuses it from now on');
});

t.run();
