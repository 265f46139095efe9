// The console's calls: same-origin JSON with the session cookie; errors keep the server's text.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** GET or send JSON; resolves to the parsed body, rejects with ApiError. */
export async function api(path, { method = 'GET', body } = {}) {
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'network', 'the server cannot be reached');
  }
  let data;
  try {
    data = await res.json();
  } catch {
    data = undefined;
  }
  if (!res.ok) throw new ApiError(res.status, data?.code ?? 'error', data?.error ?? `HTTP ${res.status}`);
  return data;
}

/** A query string from defined values. */
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** A random message id (works without a secure context, unlike crypto.randomUUID). */
export function messageId() {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return `console-${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}
