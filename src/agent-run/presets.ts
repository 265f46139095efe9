// Runtime presets: the argv that runs a known agent CLI for one conversation, keeping one runtime
// session per conversation. Pure: the argv is built from the session key and what the state says.

import { createHash } from 'node:crypto';

export type Runtime = 'claude' | 'codex';

export interface PresetPlan {
  argv: string[];
  /** The reply is read from this file instead of stdout (codex --output-last-message). */
  replyFile?: string;
  /** Reads the runtime's session id from the run's stdout, when the runtime chooses it. */
  sessionFrom?: (stdout: string) => string | undefined;
  /** The reply, when stdout is not the reply itself. */
  replyFromStdout?: false;
}

/** A stable UUID for a session key (a name-based UUID, version 5 layout over SHA-256 bits). */
export function sessionUuid(sessionKey: string): string {
  const b = createHash('sha256').update(`svc-session:${sessionKey}`).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export interface PresetInput {
  sessionKey: string;
  /** The runtime's session id from an earlier run of this conversation, if any. */
  known?: string;
  /** Extra arguments given after `--` (model, permissions...). */
  extra: string[];
  /** A file path the preset may use for the reply. */
  replyFile: string;
}

/**
 * claude: `claude -p --session-id <uuid>` the first time, `claude -p --resume <uuid>` after, the
 * prompt on stdin and the reply on stdout. codex: `codex exec --json -o FILE -` the first time,
 * `codex exec resume <id> --json -o FILE -` after, the session id read from the JSON events.
 */
export function presetPlan(runtime: Runtime, i: PresetInput): PresetPlan {
  if (runtime === 'claude') {
    const id = i.known ?? sessionUuid(i.sessionKey);
    return { argv: ['claude', '-p', ...(i.known ? ['--resume', id] : ['--session-id', id]), ...i.extra], sessionFrom: () => id };
  }
  const head = i.known ? ['codex', 'exec', 'resume', i.known] : ['codex', 'exec'];
  return {
    argv: [...head, '--json', '--output-last-message', i.replyFile, ...i.extra, '-'],
    replyFile: i.replyFile,
    replyFromStdout: false,
    sessionFrom: (stdout) => i.known ?? codexSessionId(stdout),
  };
}

/** The session (thread) id in codex's JSON events: `thread.started` or an older `session_id`. */
export function codexSessionId(stdout: string): string | undefined {
  for (const l of stdout.split('\n')) {
    if (!l.startsWith('{')) continue;
    try {
      const v = JSON.parse(l) as { type?: string; thread_id?: unknown; session_id?: unknown; msg?: { session_id?: unknown } };
      const id = v.thread_id ?? v.session_id ?? v.msg?.session_id;
      if (typeof id === 'string' && id !== '') return id;
    } catch {
      // not an event line
    }
  }
  return undefined;
}
