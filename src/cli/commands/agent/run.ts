// svc agent run: the CLI side of src/agent-run/ (flags, who the agent is, signals, exit codes).

import path from 'node:path';
import { AttachError } from '../../../client/index.js';
import { keepToken } from '../../../config/agent-credentials.js';
import { keepFix, scopeOf } from '../../agent-token.js';
import { parseDuration, parseWake, RunOptionError } from '../../../agent-run/options.js';
import { AgentRunner, type RunRecord } from '../../../agent-run/runner.js';
import type { Runtime } from '../../../agent-run/presets.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { splitList } from '../../options.js';

export interface AgentRunFlags extends ClientFlags {
  agent?: string;
  name?: string;
  wake: string;
  rooms?: string;
  reply: 'auto' | 'none';
  timeout: string;
  runtime?: Runtime;
  context: number;
  stateDir?: string;
}

export function agentRunCommand(io: Io, command: string[], flags: AgentRunFlags): Promise<number> {
  return withClient(
    io,
    'agent run',
    flags,
    async (client, target, pick) => {
      let wake: ReturnType<typeof parseWake>;
      let timeoutMs: number;
      try {
        wake = parseWake(flags.wake);
        timeoutMs = parseDuration(flags.timeout);
      } catch (err) {
        if (err instanceof RunOptionError) throw new UsageError(err.message);
        throw err;
      }
      if (!flags.runtime && command.length === 0) throw new UsageError('give the COMMAND to run after --, or --runtime claude|codex');
      const network = await client.network();
      // The agent named, or the one an agent token belongs to (withClient asked the server).
      const agentId = flags.agent ?? pick?.agentId;
      if (agentId === undefined) throw new UsageError('--agent: name the agent to act as (only an agent token names its own agent)');
      const stateDir = path.resolve(flags.stateDir ?? path.join('.svc', 'agent-run'), network.id, agentId);
      // Without a token: attach anonymously (a first claim); the token it gets is kept with the others.
      const token = target.token;
      const scope = pick?.scope ?? scopeOf(target, network, io.env);
      const log = (line: string) => io.err(`svc agent run: ${line}`);
      const runner = new AgentRunner({
        url: target.url,
        ...(token !== undefined ? { token } : {}),
        agent: { id: agentId, ...(flags.name ? { name: flags.name } : {}) },
        networkId: network.id,
        filter: { wake, rooms: splitList(flags.rooms ? [flags.rooms] : []) },
        reply: flags.reply,
        timeoutMs,
        context: flags.context,
        command,
        ...(flags.runtime ? { runtime: flags.runtime } : {}),
        stateDir,
        keepToken: (t: string) => keepToken(scope, agentId, t),
        log,
        // --json: one run record per line on stdout, for scripts; the other log lines stay on stderr.
        ...(flags.json ? { report: (r: RunRecord) => io.out(JSON.stringify(r)) } : {}),
      });
      try {
        await runner.start();
      } catch (err) {
        if (err instanceof AttachError) {
          io.err(
            `svc agent run: cannot attach as ${agentId}: ${err.message}${/registered to another credential|belongs to agent/.test(err.message) && !pick?.kept ? `; ${keepFix(agentId)}` : ''}`,
          );
          return EXIT.failure;
        }
        throw err;
      }
      const what = flags.runtime ? `${flags.runtime}${command.length ? ` ${command.join(' ')}` : ''}` : command.join(' ');
      log(
        `attached as ${agentId} to network ${network.id} at ${target.url}; waking on ${[...wake].join(', ')}${flags.rooms ? ` in ${flags.rooms}` : ''}; running ${what} (Ctrl-C to stop)`,
      );
      let stopped = false;
      const onSignal = () => {
        if (stopped) return;
        stopped = true;
        log('stopping: running commands are stopped, their wakes come again at the next start');
        void runner.stop();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await runner.done;
      } catch (err) {
        io.err(`svc agent run: ${(err as Error).message}`);
        return EXIT.failure;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      return EXIT.ok;
    },
    { agent: { agent: flags.agent, flag: '--agent', infer: true, attach: true, agentRunStateDir: flags.stateDir } },
  );
}
