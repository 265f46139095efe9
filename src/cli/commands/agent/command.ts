// `svc agent run`: runs a command-line agent on the network. Declared here; the work (run.ts) loads
// only when the command runs, so `svc --help` and every other command stay quick to start.

import { type Command, Option } from 'commander';
import type { Io } from '../../io.js';
import { connection, example, positiveInt, withDebug, type Run } from '../../options.js';

export function declareAgent(program: Command, io: Io, run: Run): void {
  const flags = withDebug(program);

  const agent = program.command('agent').description('run a command-line agent on the network');
  agent.addHelpText('after', example('svc agent run --agent alpha -- ./answer.sh'));
  connection(
    agent
      .command('run')
      .argument('[command...]', 'the command to run per wake (after --); the prompt is on its stdin')
      .description('attach as one agent and run COMMAND for each wake (mention or DM), posting its stdout as the reply'),
    'print one JSON record per run on stdout instead of a log line',
  )
    .option('--agent <id>', 'the agent to act as (default: the agent of an agent token)')
    .option('--name <name>', 'display name when the agent is registered now')
    .option('--wake <kinds>', 'what wakes it: mentions, dms, all (comma-separated)', 'mentions,dms')
    .option('--rooms <ids>', 'only wakes in these rooms and their threads (comma-separated; DMs are not rooms)')
    .addOption(
      new Option('--reply <mode>', 'auto: post stdout as the reply; none: the command replies itself (svc send)')
        .choices(['auto', 'none'])
        .default('auto'),
    )
    .option('--timeout <duration>', 'stop a run after this long (e.g. 90s, 10m, 1h)', '10m')
    .addOption(
      new Option('--runtime <name>', 'fill in COMMAND for a known runtime, one session per conversation').choices(['claude', 'codex']),
    )
    .option('--context <n>', 'recent messages of the conversation given as context', positiveInt, 20)
    .option('--state-dir <dir>', 'where the cursor, sessions and answered wakes are kept (default .svc/agent-run)')
    .addHelpText(
      'after',
      `${example(
        'svc agent run --agent alpha --wake mentions --rooms general -- node bot.js',
        'SVC_TOKEN=agt_v1_... svc agent run -- ./answer.sh',
        'svc agent run --agent alpha --runtime claude -- --model sonnet',
      )}\n\nPer run, COMMAND gets the prompt on stdin and SVC_CONVERSATION, SVC_SESSION_KEY, SVC_MESSAGE_IDS, SVC_REPLY_ID (and more) in its environment.`,
    )
    .action(async (command: string[], o) => run((await import('./run.js')).agentRunCommand(io, command, flags(o))));
}
