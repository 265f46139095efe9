// What `svc agent run` keeps on disk beside the cursor: the wakes already answered (so a wake whose
// reply is stored never runs again, even when the cursor could not move past it) and the runtime
// session id of each conversation (for the presets).

import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Answered wakes kept; older ones are behind the cursor long before this many accumulate. */
const ANSWERED_KEEP = 5000;

export interface RunState {
  readonly dir: string;
  answered(messageId: string): boolean;
  /** Records (durably) that these wakes are done. */
  markAnswered(messageIds: readonly string[], replyId: string | undefined): void;
  session(sessionKey: string): string | undefined;
  setSession(sessionKey: string, id: string): void;
  /** Keeps a claimed agent token in the state folder (mode 0600, fsynced): only when no other keeper is given (see runner.ts). */
  saveToken(token: string): void;
}

export function openRunState(dir: string): RunState {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const answeredFile = path.join(dir, 'answered.jsonl');
  const sessionsFile = path.join(dir, 'sessions.json');
  const answered = new Map<string, string>();
  let lines: string[] = [];
  try {
    lines = readFileSync(answeredFile, 'utf8').split('\n').filter(Boolean);
  } catch {
    // first start
  }
  for (const l of lines) {
    try {
      const v = JSON.parse(l) as { m: string; r?: string };
      answered.set(v.m, v.r ?? '');
    } catch {
      // a torn last line (a crash mid-append) is skipped
    }
  }
  if (lines.length > ANSWERED_KEEP * 2) {
    const keep = lines.slice(-ANSWERED_KEEP);
    writeFileSync(`${answeredFile}.tmp`, `${keep.join('\n')}\n`, { mode: 0o600 });
    renameSync(`${answeredFile}.tmp`, answeredFile);
  }
  let sessions: Record<string, string> = {};
  try {
    sessions = JSON.parse(readFileSync(sessionsFile, 'utf8')) as Record<string, string>;
  } catch {
    // none yet
  }
  return {
    dir,
    answered: (id) => answered.has(id),
    markAnswered(ids, replyId) {
      const text = `${ids.map((m) => JSON.stringify({ m, ...(replyId ? { r: replyId } : {}), at: new Date().toISOString() })).join('\n')}\n`;
      appendFileSync(answeredFile, text, { mode: 0o600 });
      const fd = openSync(answeredFile, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      for (const m of ids) answered.set(m, replyId ?? '');
    },
    session: (k) => sessions[k],
    saveToken(token) {
      const file = path.join(dir, 'agent-token');
      const fd = openSync(`${file}.tmp`, 'w', 0o600);
      try {
        writeFileSync(fd, `${token}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(`${file}.tmp`, file);
    },
    setSession(k, id) {
      if (sessions[k] === id) return;
      sessions = { ...sessions, [k]: id };
      writeFileSync(`${sessionsFile}.tmp`, JSON.stringify(sessions, null, 2), { mode: 0o600 });
      renameSync(`${sessionsFile}.tmp`, sessionsFile);
    },
  };
}
