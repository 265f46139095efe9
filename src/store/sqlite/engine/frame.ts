// Turning a resolved batch into its journal record: event seqs assigned, event messages kept by
// reference to the stored message, and each body serialized once for both the row and the record.

import type { Message } from '../../../protocol/types.js';
import { rememberJson } from '../../../protocol/json-cache.js';
import type { Effect } from '../../intents.js';
import type { StoredEvent } from '../../types.js';
import type { JournalOp } from '../apply.js';
import type { FrameBuilder } from './journal-format.js';

/** A batch ready to apply and journal. */
export interface Prepared {
  jops: JournalOp[];
  /** The JSON of op i's message (insert, update) or event (append); undefined for other ops. */
  bodies: (string | undefined)[];
  /** For an event append whose message is kept by reference: that message's JSON. */
  messageJson: (string | undefined)[];
  /** The appended events with their seqs, as published (the very event objects of the batch). */
  events: StoredEvent[];
  messages: number;
}

/**
 * Assigns event seqs after `lastSeq` and turns event messages into references. `storedJson(id)`
 * gives the JSON of a message stored before this batch.
 */
export function prepare(effects: readonly Effect[], lastSeq: number, storedJson: (id: string) => string | undefined): Prepared {
  const jops: JournalOp[] = [];
  const bodies: (string | undefined)[] = [];
  const messageJson: (string | undefined)[] = [];
  const events: StoredEvent[] = [];
  let messages = 0;
  for (let i = 0; i < effects.length; i++) {
    const op = effects[i]!;
    if (op.op === 'message.insert' || op.op === 'message.update') {
      jops.push(op);
      bodies.push(JSON.stringify(op.record.message));
      if (op.op === 'message.insert') messages++;
      continue;
    }
    if (op.op !== 'event.append') {
      jops.push(op);
      bodies.push(undefined);
      continue;
    }
    const seq = lastSeq + events.length + 1;
    events.push({ seq, event: op.event });
    const m = op.event.message;
    let jop: JournalOp = { op: 'event.append', seq, event: op.event };
    if (m) {
      // Only a message identical to the stored one is kept by reference, so reads give back
      // exactly the event that was appended (the very object stored in this batch is). The store
      // that counts is the last insert or update (an edit, a delete) of that id earlier in the
      // batch. A later edit changes what the reference reads: events show the message as it is.
      let k = i - 1;
      while (k >= 0 && storedIn(jops[k]!) !== m.id) k--;
      const ins = k >= 0 ? (jops[k] as { record: { message: Message } }).record.message : undefined;
      const stored = ins ? bodies[k] : storedJson(m.id);
      if (ins === m || stored === JSON.stringify(m)) {
        jop = { op: 'event.append', seq, event: { ...op.event, message: null }, message_id: m.id };
        messageJson[i] = stored;
      }
    }
    jops.push(jop);
    bodies.push(JSON.stringify(jop.event));
  }
  return { jops, bodies, messageJson, events, messages };
}

/** The id of the message an op stores (an insert or an update), else undefined. */
function storedIn(op: JournalOp): string | undefined {
  return op.op === 'message.insert' || op.op === 'message.update' ? op.record.message.id : undefined;
}

/**
 * Records the JSON of each appended event (as published: with its message) from the text already
 * made for the journal, so live streams and the replay buffer do not serialize it again.
 */
export function rememberEventJson(effects: readonly Effect[], bodies: (string | undefined)[], messageJson: (string | undefined)[]): void {
  for (let i = 0; i < effects.length; i++) {
    const op = effects[i]!;
    if (op.op !== 'event.append') continue;
    const body = bodies[i]!;
    const m = messageJson[i];
    if (m === undefined) rememberJson(op.event, body);
    // `{...event, message: null}` keeps the message key where it was: the last key (newEvent's
    // order) leaves `null}` at the very end, to be replaced by the message. Else leave it be.
    else if (body.endsWith(',"message":null}')) rememberJson(op.event, `${body.slice(0, -5)}${m}}`);
  }
}

/**
 * Writes the journal record of a batch, `JSON.stringify({ops})`, into `frame`, reusing each body
 * already serialized; returns the byte range of op i's body at [2i, 2i+1] (-1 when it has none).
 */
export function frameRecord(frame: FrameBuilder, jops: JournalOp[], bodies: (string | undefined)[]): number[] {
  const ranges: number[] = [];
  frame.start();
  frame.text('{"ops":[');
  for (let i = 0; i < jops.length; i++) {
    const op = jops[i]!;
    if (i > 0) frame.text(',');
    const body = bodies[i];
    if ((op.op === 'message.insert' || op.op === 'message.update') && body !== undefined) {
      const r = op.record;
      frame.text(`{"op":"${op.op}","record":{"message":`);
      ranges.push(frame.body(body), frame.offset);
      frame.text(`,"conv":${JSON.stringify(r.conv)},"event_id":${JSON.stringify(r.event_id)}}}`);
    } else if (op.op === 'event.append' && body !== undefined) {
      frame.text(`{"op":"event.append","seq":${op.seq},"event":`);
      ranges.push(frame.body(body), frame.offset);
      frame.text(`${op.message_id !== undefined ? `,"message_id":${JSON.stringify(op.message_id)}` : ''}}`);
    } else {
      frame.text(JSON.stringify(op));
      ranges.push(-1, -1);
    }
  }
  frame.text(']}');
  return ranges;
}
