// Start-up recovery of the sqlite backend, and the operator's repair of a damaged journal.
//
// A record is acknowledged only once it and every record before it are durable, so a crash can
// leave at most the last record torn: that one (with anything unreadable after it) is cut off. A
// bad record with intact records after it is damage, not a crash: the start stops with a message
// naming it and the file is left as it is. `svc store recover` then keeps every intact record,
// skips the damaged ones and keeps a copy of the original (repairJournals below).

import fs from 'node:fs';
import path from 'node:path';
import { StoreError } from '../../types.js';
import { applyOps, type JournalRecord } from '../apply.js';
import type { Db } from '../db.js';
import { ownerOf, type AnyPart, type Tagged } from '../../part.js';
import { ALL_PARTS } from '../../concerns.js';
import { migratePart } from '../schema.js';
import { fsyncDir, writeFileDurably } from './durable-file.js';
import { listJournals, readIfExists } from './journal.js';
import { crc32 } from './journal-format.js';
import { messageOf } from './turn.js';

const TAB = 0x09;
const NEWLINE = 0x0a;
const CRC_HEX = 8;

/** One line of a journal file, checked. */
interface Line {
  start: number;
  /** Byte after the line end (or the end of the file for a line without one). */
  end: number;
  /** The parsed record, when the line is an intact record. */
  record?: unknown;
  problem?: string;
}

/** Splits journal bytes into lines and checks each one. */
export function scanLines(buf: Uint8Array): Line[] {
  const lines: Line[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(NEWLINE, pos);
    if (nl < 0) {
      lines.push({ start: pos, end: buf.length, problem: `torn record (${buf.length - pos} bytes without a line end)` });
      break;
    }
    lines.push({ start: pos, end: nl + 1, ...checkLine(buf, pos, nl) });
    pos = nl + 1;
  }
  return lines;
}

function checkLine(buf: Uint8Array, pos: number, nl: number): { record?: unknown; problem?: string } {
  if (nl - pos < CRC_HEX + 1 || buf[pos + CRC_HEX] !== TAB) return { problem: 'malformed record line' };
  const hex = Buffer.from(buf.subarray(pos, pos + CRC_HEX)).toString('latin1');
  const body = buf.subarray(pos + CRC_HEX + 1, nl);
  if (!/^[0-9a-f]{8}$/.test(hex) || parseInt(hex, 16) !== crc32(body)) return { problem: 'checksum mismatch' };
  try {
    return { record: JSON.parse(Buffer.from(body).toString('utf8')) };
  } catch {
    return { problem: 'record is not JSON' };
  }
}

/** What start-up may do with one journal file. */
export interface JournalVerdict {
  records: unknown[];
  /** Bytes of the intact prefix: where the file ends once a torn tail is cut. */
  validBytes: number;
  fileBytes: number;
  /** Why the tail after validBytes is cut (a torn last record). */
  tornTail?: string;
  /** A damaged record with intact records after it: start must stop. */
  damage?: { record: number; byte: number; problem: string; intactAfter: number };
}

/** Reads one journal file and judges it (a missing file is empty). */
export function judgeJournal(file: string): JournalVerdict {
  const buf = readIfExists(file);
  if (!buf) return { records: [], validBytes: 0, fileBytes: 0 };
  const lines = scanLines(buf);
  const records: unknown[] = [];
  let validBytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.problem === undefined) {
      records.push(l.record);
      validBytes = l.end;
      continue;
    }
    const intactAfter = lines.slice(i + 1).filter((x) => x.problem === undefined).length;
    if (intactAfter > 0)
      return { records, validBytes, fileBytes: buf.length, damage: { record: i + 1, byte: l.start, problem: l.problem, intactAfter } };
    return { records, validBytes, fileBytes: buf.length, tornTail: l.problem };
  }
  return { records, validBytes, fileBytes: buf.length };
}

/** The error that stops a start on a damaged journal; names the repair. */
export function damagedJournalError(file: string, d: NonNullable<JournalVerdict['damage']>): StoreError {
  return new StoreError(
    'corrupt',
    `${file}: record ${d.record} (byte ${d.byte}) is damaged (${d.problem}) and ${d.intactAfter} intact record(s) follow it; ` +
      'this is not a crash, so nothing was cut and the server did not start. ' +
      'Stop every svc using this store, then run `svc store recover` to keep the intact records, skip the damaged one ' +
      'and keep a copy of the original journal',
  );
}

export interface RecoveredJournals {
  /** The generation appends continue in, and the valid size of its file. */
  appendGen: number;
  appendSize: number;
  /** Some journal held records the database file does not. */
  replayed: boolean;
}

/**
 * Replays the journals the database file (at generation `gen`) does not cover. A torn tail is cut
 * (only in the last file holding records); any other damage throws before anything is truncated.
 */
export async function replayJournals(
  db: Db,
  file: string,
  gen: number,
  log: (msg: string) => void,
  parts: AnyPart[],
): Promise<RecoveredJournals> {
  const journals = listJournals(file);
  let removed = false;
  // Every file is judged before anything is changed on disk.
  const verdicts = journals.map((j) => (j.gen < gen ? undefined : judgeJournal(j.path)));
  for (let k = 0; k < journals.length; k++) {
    const v = verdicts[k];
    if (v?.damage) throw damagedJournalError(journals[k]!.path, v.damage);
    if (v?.tornTail) {
      const later = verdicts.slice(k + 1).find((x) => x && x.records.length > 0);
      if (later) {
        throw damagedJournalError(journals[k]!.path, {
          record: v.records.length + 1,
          byte: v.validBytes,
          problem: v.tornTail,
          intactAfter: later.records.length,
        });
      }
    }
  }
  let appendGen = gen;
  let appendSize = 0;
  let replayed = false;
  let torn = false;
  for (let k = 0; k < journals.length; k++) {
    const j = journals[k]!;
    const v = verdicts[k];
    if (!v || torn) {
      // Older generations are in the database file; empty ones after a torn tail hold nothing.
      fs.rmSync(j.path, { force: true });
      removed = true;
      continue;
    }
    replayAll(db, v.records, j.path, parts);
    if (v.records.length > 0) replayed = true;
    appendGen = j.gen;
    appendSize = v.validBytes;
    if (v.tornTail) {
      torn = true;
      log(`store: ${j.path}: ${v.tornTail} at byte ${v.validBytes}; truncating ${v.fileBytes - v.validBytes} bytes`);
    }
  }
  // Deletions must be durable before new records land in an earlier generation.
  if (removed) await fsyncDir(path.dirname(file));
  return { appendGen, appendSize, replayed };
}

/**
 * Replays one journal file's records. Any failure makes the whole open fail (corrupt), so the
 * records can share transactions: one commit per thousand records instead of one each, which
 * is most of the replay time.
 */
export function replayAll(db: Db, records: unknown[], file: string, parts: AnyPart[]): void {
  const CHUNK = 1000;
  const adopt = adopter(db, parts);
  for (let start = 0; start < records.length; start += CHUNK) {
    db.run('BEGIN');
    let i = start;
    try {
      for (; i < Math.min(records.length, start + CHUNK); i++) {
        const ops = (records[i] as Partial<JournalRecord> | null)?.ops;
        if (!Array.isArray(ops)) throw new Error('not a write batch');
        adopt(ops);
        applyOps(db.run, ops, parts);
      }
      db.run('COMMIT');
    } catch (err) {
      db.run('ROLLBACK');
      throw new StoreError('corrupt', `${file} record ${i + 1}: ${messageOf(err)}`);
    }
  }
}

/**
 * Adds to `parts` (and makes the tables of) any part whose effects a journal holds: the store was
 * written by a server with that part and restarted with a shorter feature list before a
 * checkpoint. What was accepted is kept, whatever the store is opened for now. Each op name is
 * judged once.
 */
function adopter(db: Db, parts: AnyPart[]): (ops: { op?: unknown }[]) => void {
  const judged = new Set<unknown>();
  return (ops) => {
    for (const op of ops) {
      if (judged.has(op.op)) continue;
      judged.add(op.op);
      const part = ownerOf(ALL_PARTS, op as Tagged);
      if (part && !parts.includes(part)) {
        migratePart(db.raw, part);
        parts.push(part);
      }
    }
  };
}

export interface RepairReport {
  file: string;
  kept: number;
  skipped: { record: number; byte: number; problem: string }[];
  /** The copy of the original file. */
  backup: string;
}

/**
 * Rewrites every journal of `dbFile` that holds unreadable records with its intact records only,
 * after copying the original beside it (`<journal>.damaged-<time>`). The server must not run.
 */
export async function repairJournals(dbFile: string, now: Date = new Date()): Promise<RepairReport[]> {
  const reports: RepairReport[] = [];
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  for (const j of listJournals(path.resolve(dbFile))) {
    const buf = fs.readFileSync(j.path);
    const lines = scanLines(buf);
    const bad = lines.filter((l) => l.problem !== undefined);
    if (bad.length === 0) continue;
    const backup = `${j.path}.damaged-${stamp}`;
    fs.copyFileSync(j.path, backup, fs.constants.COPYFILE_EXCL);
    await fsyncDir(path.dirname(j.path));
    const good = lines.filter((l) => l.problem === undefined);
    await writeFileDurably(j.path, Buffer.concat(good.map((l) => buf.subarray(l.start, l.end))));
    reports.push({
      file: j.path,
      kept: good.length,
      skipped: lines.flatMap((l, i) => (l.problem !== undefined ? [{ record: i + 1, byte: l.start, problem: l.problem }] : [])),
      backup,
    });
  }
  return reports;
}
