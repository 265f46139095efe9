// The commands that talk as a person or an agent: send, read, and agent run. Each hands a plain
// function in src/cli/commands/ (or src/agent-run/) its flags.

import { type Command, Option } from 'commander';
import type { Io } from './io.js';
import { collect, connection, example, positiveInt } from './options.js';

export function registerAgentCommands(program: Command, io: Io, run: (p: Promise<number>) => Promise<void>): void {
  const flags = <T extends object>(o: T) => ({ ...o, debug: Boolean(program.opts().debug) });

  connection(
    program
      .command('send')
      .argument('<text...>', 'the message text, or - to read it from stdin')
      .description('send a message to a room, a thread or a DM, as a person or as an agent (--as)'),
    'print the server answer as JSON',
  )
    .option('--room <id>', 'room to send to')
    .option('--thread <id>', 'thread of --room to send to (a new id starts the thread)')
    .option('--parent <message-id>', 'with a new --thread: the message it answers')
    .option('--dm <agent>', 'send a DM to these agents (repeatable, or comma-separated), or to a DM id (dm_...)', collect)
    .option('--as <agent>', 'send as this agent (its agent token, or a static token that owns it)')
    .option('--human <id>', 'send as this person (default $USER; needs human ingress and a static write token)')
    .option('--mention <agent>', 'mention these agents without @ in the text (repeatable, or comma-separated)', collect)
    .option('--id <message-id>', 'message id: a retry with the same id stores nothing new')
    .addHelpText(
      'after',
      example(
        'svc send --room general "deploy finished, @beta please verify"',
        'svc send --room general --thread t-42 --as alpha "looking into it"',
        'echo "hi" | svc send --dm beta --as alpha -',
      ),
    )
    .action(async (words: string[], o) => run((await import('./commands/send/run.js')).sendCommand(io, words, flags(o))));

  connection(
    program
      .command('react')
      .argument('<message-id>', 'the message to react to')
      .argument('<emoji>', 'one Unicode emoji or a :name: shortcode')
      .description('add (or with --remove take back) a reaction to a message, as a person or as an agent (--as)'),
    'print the server answer as JSON',
  )
    .option('--remove', 'remove the reaction instead of adding it')
    .option('--as <agent>', 'react as this agent (its agent token, or a static token that owns it)')
    .option('--human <id>', 'react as this person (default $USER; needs human ingress and a static write token)')
    .addHelpText('after', example('svc react msg_01h... 👍', 'svc react msg_01h... :ship: --as alpha', 'svc react msg_01h... 👍 --remove'))
    .action(async (id: string, emoji: string, o) => run((await import('./commands/react/run.js')).reactCommand(io, id, emoji, flags(o))));

  connection(
    program.command('read').description('print the newest messages of a room, a thread or a DM, oldest first'),
    'print {messages, page} as JSON',
  )
    .option('--room <id>', 'room history (its threads are separate)')
    .option('--thread <id>', 'thread history')
    .option('--dm <dm>', 'DM history: a DM id, or the agents in it (repeatable, or comma-separated)', collect)
    .option('--limit <n>', 'how many (default 20, at most 500)', positiveInt)
    .option('--before <message-id>', 'older than this message')
    .option('--as <agent>', "read as this agent (its kept token is used in place of the config's operator token)")
    .option('--receipts', 'show who each message was delivered to and who read it (your own messages; all of them for an admin)')
    .addHelpText(
      'after',
      example(
        'svc read --room general --limit 5',
        'svc read --room general --receipts',
        'svc read --dm alpha,beta --json | jq -r ".messages[].id"',
      ),
    )
    .action(async (o) => run((await import('./commands/read/run.js')).readCommand(io, flags(o))));

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
    .action(async (command: string[], o) => run((await import('./commands/agent/run.js')).agentRunCommand(io, command, flags(o))));
}
