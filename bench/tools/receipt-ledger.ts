// The receipt work of a fan-out, in process: every agent's ledger is sent each message and ACKs it,
// and the receipt writer writes its batch every `batch` messages (against a memory store). Prints
// CPU per delivery. With --ab OTHER (another checkout's root), both trees alternate, `rounds` times.
//
//   node --import tsx bench/tools/receipt-ledger.ts [rounds=3] [agents=100] [messages=20000] [--ab OTHER] [--batch 200]

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib/svc.js';
import { opt, positional } from '../lib/args.js';

const args = positional(['--ab', '--batch', '--one']);
const rounds = Number(args[0] ?? 3);
const agents = Number(args[1] ?? 100);
const messages = Number(args[2] ?? 20_000);
const batch = Number(opt('--batch') ?? 200);

interface Ledger {
  sent(seq: number, target: { kind: 'room'; room_id: string }): void;
  ackUpTo(cursor: number): void;
}

/** One tree's figure, in this process (a child per tree and round keeps the JITs apart). */
async function one(root: string): Promise<number> {
  const { parseConfig } = await import(path.join(root, 'src/config/load.ts'));
  const { Broker } = await import(path.join(root, 'src/events/broker.ts'));
  const { NO_EXTENSIONS } = await import(path.join(root, 'src/network/context.ts'));
  const { MemoryStore } = await import(path.join(root, 'src/store/memory/index.ts'));
  // The ledger moved into the receipts feature; an older tree keeps it under live/.
  const ledgerFile = ['src/receipts/ledger.ts', 'src/live/attach/receipts.ts'].find((f) => existsSync(path.join(root, f)))!;
  const { DeliveryLedger } = await import(path.join(root, ledgerFile));
  const writerModule = await import(path.join(root, 'src/receipts/writer.ts'));
  const { config } = parseConfig({ network: { id: 'home' }, store: { backend: 'memory' } }, { baseDir: tmpdir(), env: {} });
  const ctx = {
    config,
    store: new MemoryStore(),
    broker: new Broker(),
    log: () => {},
    version: 'bench',
    configWarnings: [],
    extensions: NO_EXTENSIONS,
  };
  // Checkouts before the receipts feature registered its writer reached it by context and made
  // ledgers on the context; later ones make the writer and hand it to each ledger.
  const byContext = typeof writerModule.receiptWriter === 'function';
  const w = byContext ? writerModule.receiptWriter(ctx) : new writerModule.ReceiptWriter(ctx);
  const ledgers: Ledger[] = Array.from({ length: agents }, (_, i) => new DeliveryLedger(byContext ? ctx : w, `a${i}`, 0));
  const run = async (n: number, from: number): Promise<void> => {
    for (let seq = from; seq < from + n; seq++) {
      const target = { kind: 'room' as const, room_id: 'fanout' };
      for (const l of ledgers) {
        l.sent(seq, target);
        l.ackUpTo(seq);
      }
      if (seq % batch === 0) await w.flush();
    }
    await w.flush();
  };
  await run(2_000, 1);
  const c0 = process.cpuUsage();
  await run(messages, 2_001);
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / (agents * messages);
}

if (opt('--one')) {
  console.log(String(await one(opt('--one')!)));
} else {
  const trees = [ROOT, ...(opt('--ab') ? [path.resolve(opt('--ab')!)] : [])];
  const figures = new Map<string, number[]>(trees.map((t) => [t, []]));
  for (let r = 0; r < rounds; r++) {
    for (const t of r % 2 ? [...trees].reverse() : trees) {
      const out = execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(ROOT, 'bench/tools/receipt-ledger.ts'),
          String(rounds),
          String(agents),
          String(messages),
          '--batch',
          String(batch),
          '--one',
          t,
        ],
        { encoding: 'utf8' },
      );
      figures.get(t)!.push(Number(out.trim()));
    }
  }
  for (const [t, ns] of figures) {
    const sorted = [...ns].sort((a, b) => a - b);
    console.log(
      `${t}: median ${sorted[sorted.length >> 1]!.toFixed(0)} ns CPU per delivery (${ns.map((x) => x.toFixed(0)).join(', ')}), ${agents} agents x ${messages} messages, a batch every ${batch}`,
    );
  }
}
