// The pure parts of file transfers (#41 part 5): the name a download is saved under (from
// Content-Disposition, never outside its folder), the type an upload declares, and the progress line.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileNameOf, safeFileName } from '../../src/client/files.js';
import { contentTypeOf } from '../../src/client/content-type.js';
import { byteProgressLine, formatBytes } from '../../src/cli/byte-progress.js';

const t = suite('file transfers, pure parts');

t('reads the file name of a Content-Disposition header, the UTF-8 form first', () => {
  assert.is(fileNameOf('attachment; filename="report.pdf"'), 'report.pdf');
  assert.is(fileNameOf(`attachment; filename="r.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`), 'résumé.txt');
  assert.is(fileNameOf('inline; filename=dot.png'), 'dot.png');
  assert.is(fileNameOf('attachment; filename="say \\"hi\\".txt"'), 'say "hi".txt');
  assert.is(fileNameOf('attachment'), undefined);
  assert.is(fileNameOf(undefined), undefined);
});

t('a saved name is one path segment without control characters, never . or ..', () => {
  assert.is(safeFileName('../../etc/passwd', 'f1'), 'passwd');
  assert.is(safeFileName('..\\..\\win.ini', 'f1'), 'win.ini');
  assert.is(safeFileName('a\u0000b\u001b[31m.txt', 'f1'), 'ab[31m.txt');
  assert.is(safeFileName('..', 'f1'), 'f1');
  assert.is(safeFileName('dir/', 'f1'), 'f1');
  assert.is(safeFileName(undefined, 'f1'), 'f1');
  assert.is(safeFileName('x'.repeat(300), 'f1').length, 255);
});

t('an upload declares the type of its extension, octet-stream otherwise', () => {
  assert.is(contentTypeOf('shot.PNG'), 'image/png');
  assert.is(contentTypeOf('build.log'), 'text/plain');
  assert.is(contentTypeOf('data.tar.gz'), 'application/gzip');
  assert.is(contentTypeOf('Makefile'), 'application/octet-stream');
  assert.is(contentTypeOf('x.unknownext'), 'application/octet-stream');
});

t('the progress line shows the bar, the bytes, the share and the rate', () => {
  assert.is(formatBytes(512), '512 B');
  assert.is(formatBytes(1536), '1.5 KiB');
  assert.is(formatBytes(10 * 1024 * 1024), '10.0 MiB');
  assert.is(byteProgressLine('big.bin', 5 * 1048576, 10 * 1048576, 2000, 10), 'big.bin [#####.....] 5.0 MiB/10.0 MiB 50%, 2.5 MiB/s');
  assert.is(byteProgressLine('big.bin', 1048576, undefined, 1000), 'big.bin 1.0 MiB, 1.0 MiB/s');
});

t.run();
