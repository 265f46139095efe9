// The pure parts of a download (src/files/download-headers.ts), with exact values: which range a
// Range header asks for, If-None-Match, and the headers that keep an uploaded file inert.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contentDisposition, noneMatch, rangeOf, safetyHeaders } from '../../src/files/download-headers.js';

test('one range of bytes: first-last, first-, -suffix; past the end is unsatisfiable; anything else is the whole file', () => {
  assert.equal(rangeOf('bytes=0-3', 10), { start: 0, end: 3 });
  assert.equal(rangeOf('bytes=4-', 10), { start: 4, end: 9 });
  assert.equal(rangeOf('bytes=5-100', 10), { start: 5, end: 9 });
  assert.equal(rangeOf('bytes=-3', 10), { start: 7, end: 9 });
  assert.equal(rangeOf('bytes=-30', 10), { start: 0, end: 9 });
  assert.is(rangeOf('bytes=10-', 10), 'unsatisfiable');
  assert.is(rangeOf('bytes=-0', 10), 'unsatisfiable');
  assert.is(rangeOf('bytes=0-0', 0), 'unsatisfiable');
  assert.is(rangeOf(undefined, 10), undefined);
  assert.is(rangeOf('bytes=5-2', 10), undefined);
  assert.is(rangeOf('bytes=0-1,3-4', 10), undefined);
  assert.is(rangeOf('items=0-1', 10), undefined);
  assert.is(rangeOf('bytes=-', 10), undefined);
});

test('If-None-Match matches the ETag in a list, weak or strong, or *', () => {
  const etag = '"abc"';
  assert.ok(noneMatch('"abc"', etag));
  assert.ok(noneMatch('"x", W/"abc"', etag));
  assert.ok(noneMatch('*', etag));
  assert.not.ok(noneMatch('"abd"', etag));
  assert.not.ok(noneMatch(undefined, etag));
});

test('only PNG, JPEG, GIF and WebP are inline; every answer is sniff-proof and sandboxed', () => {
  for (const t of ['image/png', 'image/jpeg', 'image/gif', 'IMAGE/WEBP; x=1'])
    assert.match(safetyHeaders(t, 'a')['content-disposition']!, /^inline;/, t);
  for (const t of ['image/svg+xml', 'text/html', 'application/xhtml+xml', 'text/plain', 'application/pdf']) {
    const h = safetyHeaders(t, 'a');
    assert.match(h['content-disposition']!, /^attachment;/, t);
    assert.is(h['x-content-type-options'], 'nosniff');
    assert.match(h['content-security-policy']!, /^sandbox; default-src 'none'/);
  }
});

test('a name is given as an ASCII fallback and in RFC 8187 form', () => {
  assert.is(contentDisposition('attachment', 'report.pdf'), `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
  assert.is(
    contentDisposition('attachment', 'résumé "v2"; x.txt'),
    `attachment; filename="r_sum_ _v2__ x.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22%3B%20x.txt`,
  );
});

test.run();
