// Files in the composer (#41 part 7): an attach button, files dropped on the composer, images
// pasted into the text. Each file is uploaded as soon as it is chosen (POST /v1/files, raw body,
// the name in ?name=), with its progress; an image gets a thumbnail drawn in the browser (a
// canvas, shown as a data: URL, which the console's CSP allows where blob: is not). Sending waits
// for the uploads and adds a file part for each.

import { withAttrs } from './attrs.js';
import { clear, el } from './dom.js';

/** A byte count as people read it. */
export function formatSize(n) {
  if (!Number.isFinite(n) || n < 0) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** The image types shown inline (the server serves these inline; everything else is an attachment). */
export const PREVIEW_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

const THUMB = 160;

/** A thumbnail of an image file as a data: URL, or undefined when the browser cannot decode it. */
async function thumbnail(file) {
  try {
    const bitmap = await createImageBitmap(file);
    const scale = Math.min(1, THUMB / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    return canvas.toDataURL('image/png');
  } catch {
    return undefined;
  }
}

/** Uploads one file with XMLHttpRequest (fetch has no upload progress); resolves with the stored file. */
function upload(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/v1/files?name=${encodeURIComponent(file.name || 'pasted')}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size));
    xhr.addEventListener('load', () => {
      let body;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body?.file_id) resolve(body);
      else reject(new Error(body?.error ?? `HTTP ${xhr.status}`));
    });
    xhr.addEventListener('error', () => reject(new Error('the server cannot be reached')));
    xhr.send(file);
  });
}

/**
 * Adds attaching to a composer `form` whose text is `textarea`. Returns `{ parts, clear }`:
 * `parts()` waits for every upload and resolves with their file parts (rejects when one failed),
 * `clear()` empties the list after a send.
 */
export function attachFiles({ form, textarea }) {
  const pending = [];
  const list = el('ul', { class: 'attachment-list', testid: 'attachment-list', hidden: true });
  const input = withAttrs(el('input', { type: 'file', class: 'attach-input', testid: 'attach-input', hidden: true }), { multiple: '' });
  const button = withAttrs(
    el('button', { type: 'button', class: 'attach-button', testid: 'attach-button', title: 'Attach files' }, 'Attach'),
    {
      'aria-label': 'Attach files',
    },
  );
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    add(input.files);
    input.value = '';
  });
  const tools = form.querySelector('.composer-tools');
  if (tools) tools.prepend(button);
  else form.append(button);
  form.append(input, list);

  const redraw = () => {
    list.hidden = pending.length === 0;
  };
  const add = (files) => {
    for (const file of Array.from(files ?? [])) {
      const bar = withAttrs(el('progress', { testid: 'attachment-progress' }), { max: String(file.size || 1), value: '0' });
      const status = el('span', { class: 'muted', testid: 'attachment-status' }, formatSize(file.size));
      const thumb = el('span', { class: 'attachment-thumb' });
      const remove = withAttrs(el('button', { type: 'button', class: 'attachment-remove', testid: 'attachment-remove' }, '×'), {
        'aria-label': `Remove ${file.name}`,
      });
      const item = el(
        'li',
        { class: 'attachment', testid: 'attachment' },
        thumb,
        el('span', { class: 'attachment-name' }, file.name || 'pasted'),
        ' ',
        status,
        bar,
        remove,
      );
      const entry = { file, item, done: undefined };
      entry.done = upload(file, (loaded, total) => {
        bar.max = total || 1;
        bar.value = loaded;
        status.textContent = `${formatSize(loaded)} / ${formatSize(total)}`;
      }).then(
        (stored) => {
          bar.value = bar.max;
          bar.hidden = true;
          status.textContent = formatSize(stored.size);
          item.dataset.fileId = stored.file_id;
          return stored;
        },
        (err) => {
          bar.hidden = true;
          status.textContent = `not uploaded: ${err.message}`;
          item.classList.add('failed');
          throw err;
        },
      );
      // Failures are shown on the item and reported again by parts(); never unhandled.
      entry.done.catch(() => {});
      if (PREVIEW_TYPES.has(file.type))
        thumbnail(file).then((url) => {
          if (url) thumb.append(withAttrs(el('img', { testid: 'attachment-thumb' }), { src: url, alt: '' }));
        });
      remove.addEventListener('click', () => {
        pending.splice(pending.indexOf(entry), 1);
        item.remove();
        redraw();
      });
      pending.push(entry);
      list.append(item);
    }
    redraw();
  };

  // Drop on the composer: files only (dragged text keeps its ordinary behaviour).
  const hasFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  form.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    form.classList.add('dropping');
  });
  form.addEventListener('dragleave', () => form.classList.remove('dropping'));
  form.addEventListener('drop', (e) => {
    form.classList.remove('dropping');
    if (!e.dataTransfer?.files?.length) return;
    e.preventDefault();
    add(e.dataTransfer.files);
  });
  // A pasted image (a screenshot) becomes an attachment; pasted text stays text.
  textarea.addEventListener('paste', (e) => {
    const files = Array.from(e.clipboardData?.items ?? [])
      .filter((i) => i.kind === 'file')
      .map((i) => i.getAsFile())
      .filter(Boolean);
    if (files.length === 0) return;
    e.preventDefault();
    add(
      files.map((f) =>
        f.name ? f : new File([f], `pasted.${(f.type.split('/')[1] || 'bin').replace(/[^a-z0-9]/g, '')}`, { type: f.type }),
      ),
    );
  });

  return {
    count: () => pending.length,
    parts: async () => {
      const stored = await Promise.all(pending.map((p) => p.done));
      return stored.map((f) => ({ kind: 'file', file_id: f.file_id, name: f.name, content_type: f.content_type, size: f.size }));
    },
    clear: () => {
      pending.length = 0;
      clear(list);
      redraw();
    },
  };
}
