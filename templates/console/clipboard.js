// Copying text for the copy buttons (code blocks, message links). The async clipboard needs a
// secure context; over plain http a hidden textarea and execCommand do it instead.

import { toast } from './dom.js';

/** Copies `text`; shows `done` in the toast when it worked. Resolves to whether it did. */
export async function copyText(text, done = 'copied') {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    ok = legacyCopy(text);
  }
  toast(ok ? done : 'could not copy: select and copy by hand');
  return ok;
}

function legacyCopy(text) {
  const box = document.createElement('textarea');
  box.value = text;
  box.setAttribute('readonly', '');
  box.className = 'offscreen';
  document.body.append(box);
  box.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  box.remove();
  return ok;
}
