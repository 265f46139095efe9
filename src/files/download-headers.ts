// The pure parts of a download's answer: which byte range a Range header asks for, the ETag and
// its match, and the headers that keep an uploaded file from ever running in svc's origin.

import type { ByteRange } from './blobs/types.js';

/**
 * Types a browser may show inline: images that cannot carry script. SVG is not one of them (it is
 * a document that runs script), nor is anything else: every other file is an attachment.
 */
export const INLINE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The media type of a Content-Type value, lower-cased, without parameters. */
export const mediaType = (contentType: string): string => contentType.split(';')[0]!.trim().toLowerCase();

/** A strong ETag from the content's hash: the same bytes are the same entity wherever they are served. */
export const etagOf = (sha256: string): string => `"${sha256}"`;

/** Whether an If-None-Match header matches the ETag (`*`, or one of its list, weak or strong). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * The range a `Range` header asks for in a file of `size` bytes: one `bytes=` range (first-last,
 * first-, or -suffix); `unsatisfiable` for one that starts past the end; undefined when the header
 * is absent, malformed or asks for several ranges (then the whole file is the answer, as RFC 9110
 * lets a server do).
 */
export function rangeOf(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    if (size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** `filename*` in RFC 8187 form, and an ASCII fallback with anything unsafe replaced. */
export function contentDisposition(disposition: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * The headers every download carries: an attachment unless the type is a safe image, no type
 * sniffing, and a CSP that sandboxes the document (no script, no same origin, nothing loaded), so
 * an uploaded HTML or SVG opened directly still cannot act in svc's origin.
 */
export function safetyHeaders(contentType: string, name: string): Record<string, string> {
  const inline = INLINE_TYPES.has(mediaType(contentType));
  return {
    'content-type': contentType,
    'content-disposition': contentDisposition(inline ? 'inline' : 'attachment', name),
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'",
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'private, max-age=0, must-revalidate',
  };
}
