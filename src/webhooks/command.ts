// `svc webhooks list|deliveries|retry|test`, the webhooks feature's command: the running server's
// outbound webhooks and inbound hooks. Declared here with what the CLI lends (src/feature-cli.ts);
// the work (cli.ts) loads only when the command runs, so `svc --help` and every other command stay
// quick to start.

import type { FeatureCommand } from '../feature-cli.js';

export const webhooksCommand: FeatureCommand = {
  declare(program, kit) {
    const mod = () => import('./cli.js');
    const flags = <T extends object>(o: T) => ({ ...o, debug: kit.debug() });
    const cmd = program
      .command('webhooks')
      .description("the running server's outbound webhooks (outbox, deliveries, dead letters) and inbound hooks (admin)");
    cmd.addHelpText('after', kit.example('svc webhooks list', 'svc webhooks deliveries ci --status dead', 'svc webhooks retry ci'));
    kit
      .connection(cmd.command('list').description('list outbound webhooks with pending and dead counts, and inbound hooks'))
      .action(async (o) => kit.run((await mod()).webhooksList(kit, flags(o))));
    kit
      .connection(cmd.command('deliveries').argument('<webhook>', 'webhook id').description("a webhook's deliveries, newest first"))
      .option('--status <status>', 'only pending, delivered or dead')
      .option('--limit <n>', 'at most N (default 100)', kit.positiveInt)
      .action(async (id: string, o) => kit.run((await mod()).webhookDeliveries(kit, id, flags(o))));
    kit
      .connection(
        cmd
          .command('retry')
          .argument('<webhook>', 'webhook id')
          .argument('[delivery]', 'one dead delivery id (default: every dead one)')
          .description('queue dead-lettered deliveries again, with a new retry window'),
      )
      .action(async (id: string, delivery: string | undefined, o) => kit.run((await mod()).webhookRetry(kit, id, delivery, flags(o))));
    kit
      .connection(cmd.command('test').argument('<webhook>', 'webhook id').description('queue a webhook.test delivery to the target'))
      .action(async (id: string, o) => kit.run((await mod()).webhookTest(kit, id, flags(o))));
  },
};
