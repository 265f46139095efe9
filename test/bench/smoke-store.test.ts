// The smoke run of the scenarios on one store: many attachments and a broadcast to all, uploads
// beside an ingest, and history, search and the write cost on a filled store: smoke-run.ts says
// what the three smoke files are for.

import * as assert from 'uvu/assert';
import { PURGE_BATCH } from '../../src/retention/job.js';
import { assertVerdicts, numbers, smokeSuite } from './smoke-run.js';

const t = smokeSuite(['attach', 'files', 'history']);

t('prints every target with met, missed or saturated, and a summary of them', ({ output }) => {
  assertVerdicts(output, ['history page p99', 'resident memory per attachment', 'one room message to all']);
});

t('attaches many agents to svc and as many sockets to the baseline, and times a broadcast to all', ({ results }) => {
  for (const side of ['svc', 'baseline']) {
    const a = results.attach_10k[side];
    numbers(a, ['mem_kb_per_attachment', 'broadcast_p99_ms', 'attach_storm_s', 'attachments', 'idle_pct'], `attach_10k.${side}`);
    assert.is(a.attachments, results.params.attachments, `attach_10k.${side}.attachments`);
    assert.ok(a.complete, `attach_10k.${side}: every member got every broadcast`);
  }
});

t('measures history, search, start-up, memory and size on a filled store, and the write cost ratio', ({ results }) => {
  numbers(
    results.history.svc,
    ['messages', 'p50_ms', 'p99_ms', 'search_p50_ms', 'search_p99_ms', 'startup_s', 'rss_mb', 'db_mb', 'max_pause_ms'],
    'history.svc',
  );
  assert.ok(results.history.svc.messages > 0);
  // The same page on a small store: the target is the ratio, so it means the same on any machine.
  const h = results.history.svc;
  numbers(h, ['p99_ms_small', 'messages_small', 'p99_ratio', 'idle_pct'], 'history.svc');
  assert.ok(h.messages_small < h.messages, 'the small store is smaller');
  assert.ok(Math.abs(h.p99_ratio - h.p99_ms / h.p99_ms_small) < 0.001, 'history.svc.p99_ratio is p99_ms / p99_ms_small');
  // The write cost is the big store's ingest over the same ingest on an empty store, from this scenario.
  numbers(h, ['ingest_rate', 'ingest_rate_empty'], 'history.svc');
  // As many big-store rounds as empty-store ones, one each per repetition.
  assert.equal(h.ingest_rates.length, results.params.reps ?? 1, 'history.svc.ingest_rates: a rate per repetition');
  assert.equal(h.ingest_rates_empty.length, h.ingest_rates.length, 'history.svc.ingest_rates_empty: as many as ingest_rates');
  // The stall is read from the watch preloaded into svc serve: a number, and a turn takes some time.
  numbers(h, ['event_loop_max_ms'], 'history.svc');
  assert.ok(h.event_loop_max_ms >= 1, `history.svc.event_loop_max_ms: ${h.event_loop_max_ms}`);
  assert.ok(h.ingest_rate_empty > 0, 'the empty-store ingest ran');
  assert.ok(Number.isFinite(results.write_cost_ratio.svc), `write_cost_ratio.svc: ${JSON.stringify(results.write_cost_ratio)}`);
  assert.ok(
    Math.abs(results.write_cost_ratio.svc - h.ingest_rate / h.ingest_rate_empty) < 0.01,
    'write_cost_ratio.svc is history.svc.ingest_rate / ingest_rate_empty',
  );
});

t("purges a tenth of the filled store during an ingest, and times each purge write's hold on the loop", ({ results }) => {
  const r = results.history.svc.retention;
  numbers(r, ['expired', 'purged', 'ingest_rate', 'event_loop_max_ms', 'writes', 'writes_over_25ms'], 'history.svc.retention');
  assert.ok(r.purged >= r.expired && r.expired > 0, `history.svc.retention: every expired message purged: ${JSON.stringify(r)}`);
  // A write takes at most PURGE_BATCH.max messages, and the bound holding them all is one of the histogram's.
  assert.ok(r.writes >= Math.ceil(r.expired / PURGE_BATCH.max), `history.svc.retention.writes: ${r.writes} for ${r.expired}`);
  assert.ok(r.writes_over_25ms >= 0 && r.writes_over_25ms <= r.writes, `history.svc.retention.writes_over_25ms: ${r.writes_over_25ms}`);
  assert.ok(
    r.write_max_bound_ms === null || [2, 5, 10, 25, 50, 100, 250].includes(r.write_max_bound_ms),
    `write_max_bound_ms: ${r.write_max_bound_ms}`,
  );
});

t('measures uploads and the ingest p99 with them beside the same ingest alone', ({ results }) => {
  const f = results.files;
  numbers(f, ['upload_mib_per_s', 'ingest_p99_ms_with_uploads', 'ingest_p99_ms_alone', 'ingest_p99_ratio', 'uploads'], 'files');
  assert.ok(f.uploads > 0, 'files.uploads: some uploads finished during the ingest');
  assert.ok(f.upload_mib_per_s > 0, 'files.upload_mib_per_s');
});

t.run();
