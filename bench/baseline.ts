// The baseline: the least a Node server must do for svc's hot path, with nothing else. It reads
// each POST body, parses it, builds the stored message and event, appends them to a journal with
// one write + one fdatasync per event-loop turn (group commit), answers once durable, and writes
// each event, serialized once, to every WebSocket subscriber. No auth, no schema, no database:
// the practical limit of this runtime on this machine, which svc is compared with.
//
//   node --import tsx bench/baseline.ts --dir DIR [--port N]

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : dflt;
};
const dir = arg('--dir', '.');
const port = Number(arg('--port', '0'));
const fd = fs.openSync(path.join(dir, 'baseline.journal'), 'a', 0o600);

interface Pending {
  res: http.ServerResponse;
  reply: string;
  /** The EVENT frame: the journal record and, as bytes, what every subscriber gets. */
  text: string;
  frame: Buffer;
}

let seq = 0;
let queue: Pending[] = [];
let syncing = false;
let scheduled = false;
const subscribers = new Set<WebSocket>();

function schedule(): void {
  if (scheduled || syncing) return;
  scheduled = true;
  setImmediate(flush);
}

/** Writes every queued record, fdatasyncs once, then answers and fans out the whole batch. */
function flush(): void {
  scheduled = false;
  if (queue.length === 0) return;
  const batch = queue;
  queue = [];
  syncing = true;
  fs.writeSync(fd, `${batch.map((p) => p.text).join('\n')}\n`);
  fs.fdatasync(fd, (err) => {
    syncing = false;
    for (const p of batch) {
      if (err) {
        p.res.writeHead(503).end();
        continue;
      }
      p.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(p.reply) });
      p.res.end(p.reply);
      for (const ws of subscribers) ws.send(p.frame);
    }
    if (queue.length > 0) schedule();
  });
}

const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${randomBytes(8).toString('hex')}`;

const server = http.createServer({ keepAliveTimeout: 5000 }, (req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 15 }).end('{"status":"ok"}');
    return;
  }
  if (req.method !== 'POST' || req.url !== '/v1/messages') {
    res.writeHead(404, { 'content-length': 0 }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: { target?: unknown; from?: { id?: string; type?: string }; parts?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-length': 0 }).end();
      return;
    }
    const at = new Date().toISOString();
    const message = {
      id: id('msg'),
      network_id: 'baseline',
      target: body.target,
      from: body.from,
      parts: body.parts,
      mentions: [],
      created_at: at,
    };
    const event = { id: id('evt'), type: 'message.created', network_id: 'baseline', message, created_at: at };
    const text = JSON.stringify({ op: 'EVENT', cursor: ++seq, event });
    const reply = JSON.stringify({ message_id: message.id, event_id: event.id, accepted: true, thread_created: false, dm_created: false });
    queue.push({ res, reply, text, frame: Buffer.from(text) });
    schedule();
  });
});

const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
server.on('upgrade', (req, socket, head) => {
  wss.handleUpgrade(req, socket, head, (ws) => {
    subscribers.add(ws);
    ws.on('close', () => subscribers.delete(ws));
    ws.on('error', () => subscribers.delete(ws));
    // ACKs and pings from clients are read and dropped.
    ws.on('message', () => {});
  });
});

server.listen(port, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`baseline listening on ${typeof a === 'object' && a ? a.port : port}\n`);
});

const shutdown = () => {
  for (const ws of subscribers) ws.terminate();
  server.close();
  fs.closeSync(fd);
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
