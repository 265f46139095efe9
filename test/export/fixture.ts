// A small network with something of every kind an export carries, and the export's lines.

import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { claimThenJoin } from '../helpers/claim.js';
import { TOKENS, type HttpServer, type Json } from '../helpers/server.js';

export const ADMIN = TOKENS.admin.value;
export const ROOMS = [
  { id: 'general', members: ['alpha'] },
  { id: 'hidden', visibility: 'private', members: [], retention: { max_age: '30d' } },
];
export const CONFIG = { auth: { agent_registration: 'open' }, rooms: ROOMS };

const text = (t: string) => [{ kind: 'text', text: t }];

/**
 * Fills `s`: an agent with a generated token, room, thread and DM messages, an edited message (with
 * its earlier version), a deleted one, a reaction and a read receipt. Answers the agent's token.
 */
export async function fill(s: HttpServer): Promise<string> {
  const reg = await claimThenJoin(s, 'gen', ['general', 'hidden'], 'Generated');
  const gen = reg.body.agent_token as string;
  const send = async (body: Json, token: string): Promise<string> => {
    const r = await s.post('/v1/messages', body, token);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  const first = await send(
    { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'gen' }, parts: text('hello @alpha') },
    gen,
  );
  await send({ target: { kind: 'room', room_id: 'hidden' }, from: { type: 'agent', id: 'gen' }, parts: text('secret') }, gen);
  const thread = { kind: 'thread', room_id: 'general', thread_id: 't1' };
  await send({ target: thread, from: { type: 'human', id: 'op' }, parts: text('in a thread') }, ADMIN);
  const reply = await send({ target: thread, from: { type: 'agent', id: 'gen' }, parts: text('reply') }, gen);
  await send(
    { target: { kind: 'dm', participant_ids: ['testnet:gen', 'testnet:alpha'] }, from: { type: 'agent', id: 'gen' }, parts: text('psst') },
    gen,
  );
  const gone = await send({ target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'gen' }, parts: text('oops') }, gen);
  const edited = await s.req('PATCH', `/v1/messages/${first}`, { token: gen, body: { parts: text('hello again @alpha') } });
  assert.is(edited.status, 200, edited.text);
  const deleted = await s.req('DELETE', `/v1/messages/${gone}`, { token: gen });
  assert.is(deleted.status, 200, deleted.text);
  const reacted = await s.req('PUT', `/v1/messages/${reply}/reactions/${encodeURIComponent('👍')}`, { token: gen });
  assert.is(reacted.status, 200, reacted.text);
  const read = await s.post(`/v1/messages/${first}/read`, {}, gen);
  assert.is(read.status, 200, read.text);
  return gen;
}

/** What the network answers to an operator: rooms, histories, threads, agents, DMs. */
export async function reads(s: HttpServer, token = ADMIN): Promise<Json> {
  const get = async (p: string) => {
    const r = await s.get(p, token);
    assert.is(r.status, 200, `${p}: ${r.text}`);
    return r.body;
  };
  return {
    rooms: await get('/v1/rooms'),
    general: await get('/v1/rooms/general/messages'),
    hidden: await get('/v1/rooms/hidden/messages'),
    thread: await get('/v1/threads/t1/messages'),
    agents: await get('/v1/agents'),
    dms: await get('/v1/dms'),
  };
}

/** `svc export` of the server whose config is `configFile` into `file`; answers the file's lines. */
export async function exportTo(
  configFile: string,
  file: string,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<string[]> {
  const r = await cli(['export', '--config', configFile, '-o', file, ...extra], { env: { SVC_TOKEN: ADMIN, ...env } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '', 'no progress bar off a terminal');
  assert.match(r.stdout, /^exported \d+ messages \(\d+ lines(, with secrets)?\) into /);
  return linesOf(file);
}

export function linesOf(file: string): string[] {
  const t = readFileSync(file, 'utf8');
  assert.ok(t.endsWith('\n'), 'the file ends with a newline');
  return t.slice(0, -1).split('\n');
}

/** The lines with the header's `exported_at` taken out: the one field two exports of one state differ in. */
export function comparable(lines: string[]): string[] {
  const h = JSON.parse(lines[0]!) as Json;
  assert.match(h.exported_at, /^\d{4}-\d\d-\d\dT/);
  delete h.exported_at;
  return [JSON.stringify(h), ...lines.slice(1)];
}

/** The parsed lines of one type. */
export const ofType = (lines: string[], type: string): Json[] => lines.map((l) => JSON.parse(l) as Json).filter((o) => o.type === type);
