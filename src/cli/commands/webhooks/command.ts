// `svc webhooks list|deliveries|retry|test`: the running server's outbound webhooks and inbound
// hooks. Declared here; the work (run.ts) loads only when the command runs, so `svc --help` and
// every other command stay quick to start.

import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, positiveInt, type Run } from '../../options.js';

export function declareWebhooks(program: Command, io: Io, run: Run): void {
  const debug = () => Boolean(program.opts().debug);
  const mod = () => import('./run.js');
  const cmd = program
    .command('webhooks')
    .description("the running server's outbound webhooks (outbox, deliveries, dead letters) and inbound hooks (admin)");
  cmd.addHelpText('after', example('svc webhooks list', 'svc webhooks deliveries ci --status dead', 'svc webhooks retry ci'));
  connection(cmd.command('list').description('list outbound webhooks with pending and dead counts, and inbound hooks')).action(async (o) =>
    run((await mod()).webhooksList(io, { ...o, debug: debug() })),
  );
  connection(cmd.command('deliveries').argument('<webhook>', 'webhook id').description("a webhook's deliveries, newest first"))
    .option('--status <status>', 'only pending, delivered or dead')
    .option('--limit <n>', 'at most N (default 100)', positiveInt)
    .action(async (id: string, o) => run((await mod()).webhookDeliveries(io, id, { ...o, debug: debug() })));
  connection(
    cmd
      .command('retry')
      .argument('<webhook>', 'webhook id')
      .argument('[delivery]', 'one dead delivery id (default: every dead one)')
      .description('queue dead-lettered deliveries again, with a new retry window'),
  ).action(async (id: string, delivery: string | undefined, o) =>
    run((await mod()).webhookRetry(io, id, delivery, { ...o, debug: debug() })),
  );
  connection(cmd.command('test').argument('<webhook>', 'webhook id').description('queue a webhook.test delivery to the target')).action(
    async (id: string, o) => run((await mod()).webhookTest(io, id, { ...o, debug: debug() })),
  );
}
