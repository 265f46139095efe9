// svc webhooks list|deliveries|retry|test, the work of the webhooks feature's command (command.ts):
// the running server's outbound webhooks and inbound hooks (#28 parts 3 and 4), through the admin
// routes under /v1/webhooks.

import path from 'node:path';
import type { SvcClient } from '../client/svc-client.js';
import { loadConfig } from '../config/load.js';
import type { ClientFlags, CommandKit, CommandTarget } from '../feature-cli.js';
import type { WebhookDeliveryView, WebhookList } from '../protocol/webhooks.js';

/** A hook the config file declares that the server does not run (a refused reload, or a restart not done yet). */
export interface NotLoadedHook {
  kind: 'webhook' | 'inbound_hook';
  id: string;
}

/**
 * The hooks of this config's svc.yaml missing from the server's listing. Only when the target is the
 * config's own server (its runtime file or listen_addr): another server's hooks are not this file's.
 */
function notLoaded(t: CommandTarget, listed: WebhookList, env: NodeJS.ProcessEnv): NotLoadedHook[] {
  if (!t.configExists || (t.urlSource !== 'runtime' && t.urlSource !== 'config')) return [];
  let declared;
  try {
    declared = loadConfig(t.configFile, env, 'client').config;
  } catch {
    return []; // an invalid file: svc doctor and the server's warnings say why
  }
  return [
    ...declared.webhooks.filter((w) => !listed.webhooks.some((x) => x.id === w.id)).map((w) => ({ kind: 'webhook' as const, id: w.id })),
    ...declared.inbound_hooks
      .filter((h) => !listed.inbound_hooks.some((x) => x.id === h.id))
      .map((h) => ({ kind: 'inbound_hook' as const, id: h.id })),
  ];
}

/** Why the server runs an older config, from its config_reload_refused warning, if it has one. */
async function refusedReason(client: SvcClient): Promise<string | undefined> {
  const w = (await client.network()).warnings.find((x) => x.code === 'config_reload_refused');
  return w?.message;
}

/** Prints the webhooks (with their outbox counts) and the inbound hooks. */
export async function webhooksList(kit: CommandKit, flags: ClientFlags): Promise<number> {
  const { io } = kit;
  const { withClient, json, table, exit: EXIT } = await kit.work();
  return withClient('webhooks list', flags, async (client, t) => {
    const r = await client.listWebhooks();
    const missing = notLoaded(t, r, io.env);
    if (flags.json) {
      io.out(json(missing.length > 0 ? { ...r, not_loaded: missing } : r));
      return EXIT.ok;
    }
    const c = io.color;
    if (missing.length > 0) {
      io.out(c.bold(`declared in ${path.basename(t.configFile)}, not loaded by the server`));
      for (const line of table(c, missing, [
        { header: 'ID', value: (h) => h.id, style: (s) => c.yellow(s) },
        { header: 'KIND', value: (h) => h.kind },
      ]))
        io.out(line);
      const why = await refusedReason(client);
      io.out(
        why ? `why: ${why}` : 'the server has not loaded this version of the file (it reloads on save; svc doctor shows its warnings)',
      );
    }
    if (r.webhooks.length === 0 && r.inbound_hooks.length === 0) {
      if (missing.length > 0) return EXIT.ok;
      io.out('no webhooks (declare them in svc.yaml or with svc apply: webhooks: and inbound_hooks:)');
      return EXIT.ok;
    }
    if (r.webhooks.length > 0) {
      io.out(c.bold('outbound'));
      for (const line of table(c, r.webhooks, [
        { header: 'ID', value: (w) => w.id, style: (s) => c.cyan(s) },
        { header: 'URL', value: (w) => w.url },
        { header: 'EVENTS', value: (w) => w.events.join(',') },
        { header: 'ROOMS', value: (w) => (w.rooms ? w.rooms.join(',') : '*') },
        { header: 'PENDING', value: (w) => String(w.pending) },
        { header: 'DEAD', value: (w) => String(w.dead), style: (s, w) => (w.dead > 0 ? c.red(s) : s) },
        { header: 'SOURCE', value: (w) => w.source },
      ]))
        io.out(line);
    }
    if (r.inbound_hooks.length > 0) {
      io.out(c.bold('inbound'));
      for (const line of table(c, r.inbound_hooks, [
        { header: 'ID', value: (h) => h.id, style: (s) => c.cyan(s) },
        { header: 'ROOM', value: (h) => h.room },
        { header: 'SENDER', value: (h) => h.sender },
        { header: 'POST', value: (h) => h.path },
        { header: 'SOURCE', value: (h) => h.source },
      ]))
        io.out(line);
    }
    return EXIT.ok;
  });
}

/** Prints a webhook's deliveries, newest first. */
export async function webhookDeliveries(
  kit: CommandKit,
  id: string,
  flags: ClientFlags & { status?: string; limit?: number },
): Promise<number> {
  const { io } = kit;
  const { withClient, json, table, exit: EXIT } = await kit.work();
  return withClient('webhooks deliveries', flags, async (client) => {
    const r = await client.webhookDeliveries(id, {
      ...(flags.status ? { status: flags.status } : {}),
      ...(flags.limit ? { limit: flags.limit } : {}),
    });
    if (flags.json) {
      io.out(json(r));
      return EXIT.ok;
    }
    if (r.deliveries.length === 0) {
      io.out(`no deliveries${flags.status ? ` (${flags.status})` : ''} for webhook ${id}`);
      return EXIT.ok;
    }
    const c = io.color;
    for (const line of table(c, r.deliveries, [
      { header: 'ID', value: (d: WebhookDeliveryView) => d.id },
      { header: 'EVENT', value: (d) => d.event_type },
      {
        header: 'STATUS',
        value: (d) => d.status,
        style: (s, d) => (d.status === 'delivered' ? c.green(s) : d.status === 'dead' ? c.red(s) : c.yellow(s)),
      },
      { header: 'ATTEMPTS', value: (d) => String(d.attempts) },
      // When a pending one is tried next: a delivery waiting on a retry is not stuck.
      { header: 'NEXT', value: (d) => (d.status === 'pending' ? d.next_attempt_at : '-') },
      { header: 'LAST', value: (d) => d.last_error ?? (d.last_status !== undefined ? String(d.last_status) : '-') },
    ]))
      io.out(line);
    return EXIT.ok;
  });
}

/** Queues dead deliveries again (one, or every dead one of the webhook). */
export async function webhookRetry(kit: CommandKit, id: string, deliveryId: string | undefined, flags: ClientFlags): Promise<number> {
  const { io } = kit;
  const { withClient, json, exit: EXIT } = await kit.work();
  return withClient('webhooks retry', flags, async (client) => {
    const r = await client.retryWebhook(id, deliveryId);
    if (flags.json) io.out(json(r));
    else io.out(r.retried.length === 0 ? `no dead deliveries for webhook ${id}` : `queued again: ${r.retried.join(', ')}`);
    return EXIT.ok;
  });
}

/** Queues a webhook.test delivery. */
export async function webhookTest(kit: CommandKit, id: string, flags: ClientFlags): Promise<number> {
  const { io } = kit;
  const { withClient, json, exit: EXIT } = await kit.work();
  return withClient('webhooks test', flags, async (client) => {
    const r = await client.testWebhook(id);
    if (flags.json) io.out(json(r));
    else io.out(`queued ${r.delivery.id}; see: svc webhooks deliveries ${id}`);
    return EXIT.ok;
  });
}
