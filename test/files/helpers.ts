// What the files tests share: uploads (raw and multipart), downloads with headers, and a server
// with three self-registered agents in a public and a private room.

import * as assert from 'uvu/assert';
import { claimThenJoin } from '../helpers/claim.js';
import type { HttpServer, Json, Res } from '../helpers/server.js';

/** The agent tokens of ann, bob and cal. */
export interface Agents {
  ann: string;
  bob: string;
  cal: string;
}

/** The rooms the files tests use: `pub` (public) and `priv` (private), declared without members. */
export const FILE_ROOMS = [
  { id: 'pub', name: 'Public', visibility: 'public' },
  { id: 'priv', name: 'Private', visibility: 'private' },
];

/** ann, bob and cal in `pub`; only bob in `priv`. Answers their agent tokens. */
export async function fileAgents(s: HttpServer): Promise<Agents> {
  const token = async (id: string, rooms: string[]) => String((await claimThenJoin(s, id, rooms)).body.agent_token);
  return { ann: await token('ann', ['pub']), bob: await token('bob', ['pub', 'priv']), cal: await token('cal', ['pub']) };
}

/** A raw upload. */
export function upload(
  s: HttpServer,
  bytes: Buffer | string,
  name: string,
  token: string,
  type = 'application/octet-stream',
): Promise<Res> {
  return s.req('POST', `/v1/files?name=${encodeURIComponent(name)}`, { token, raw: bytes, headers: { 'content-type': type } });
}

/** An upload that must succeed; answers the file id. */
export async function uploaded(s: HttpServer, bytes: Buffer | string, name: string, token: string, type?: string): Promise<string> {
  const r = await upload(s, bytes, name, token, type);
  assert.is(r.status, 201, r.text);
  return String(r.body.file_id);
}

/** A multipart upload of one file part. */
export async function uploadForm(s: HttpServer, bytes: Buffer | string, filename: string, type: string, token: string): Promise<Res> {
  const form = new FormData();
  form.append('note', 'ignored');
  form.append('file', new Blob([bytes], { type }), filename);
  const res = await fetch(`${s.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text, headers: res.headers };
}

/** A download: status, headers and the bytes. */
export async function download(
  s: HttpServer,
  id: string,
  token: string | undefined,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Headers; bytes: Buffer; json: Json }> {
  const res = await fetch(`${s.url}/v1/files/${id}`, {
    method,
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: Json;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(bytes.toString() || 'null');
  return { status: res.status, headers: res.headers, bytes, json };
}

/** The error a download answers, without its request id: the same for a file one may not read and one that is not there. */
export async function refusal(s: HttpServer, id: string, token: string | undefined): Promise<Json> {
  const r = await download(s, id, token);
  return { status: r.status, code: r.json?.code, error: String(r.json?.error).replace(id, '<id>') };
}

/** Sends a message with a file part (and text) as `from` into `target`. */
export function sendFile(s: HttpServer, token: string, from: string, target: Json, fileId: string, extra: Json = {}): Promise<Res> {
  return s.post(
    '/v1/messages',
    {
      target,
      from: { type: 'agent', id: from },
      parts: [
        { kind: 'text', text: 'here' },
        { kind: 'file', file_id: fileId, ...extra },
      ],
    },
    token,
  );
}
