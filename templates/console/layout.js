// The page's frame (docs/console.md, Layout): a collapsible sidebar (a drawer on a narrow screen),
// an artifacts panel collapsed while the conversation has none, keyboard shortcuts and their help,
// and the explanation a signed-out visitor sees.

import { $, state } from './state.js';
import { nextUnread } from './unread.js';
import { toast } from './dom.js';

/** Below this width the sidebar and the artifacts panel open over the conversation. */
const NARROW = window.matchMedia('(max-width: 760px)');

/** The person's own choice for the artifacts panel; undefined: open it when there are artifacts. */
let artifactsChoice;

function setSide(open) {
  document.body.classList.toggle('side-closed', !open);
  $('toggle-side').setAttribute('aria-expanded', String(open));
}

function sideOpen() {
  return !document.body.classList.contains('side-closed');
}

function setArtifacts(open) {
  document.body.classList.toggle('artifacts-open', open);
  $('toggle-artifacts').setAttribute('aria-expanded', String(open));
}

const artifactCount = () => $('artifacts').querySelectorAll('[data-testid=artifact]').length;

function fitArtifacts() {
  const n = artifactCount();
  $('toggle-artifacts').textContent = n > 0 ? `Artifacts (${n})` : 'Artifacts';
  if (artifactsChoice === undefined) setArtifacts(n > 0 && !NARROW.matches);
}

const typing = (t) => t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

function onKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
  if (document.querySelector('dialog[open]')) return;
  switch (e.key) {
    case '?':
      $('help').showModal();
      break;
    case '/':
      $('search-q').focus();
      break;
    case 'c':
      if ($('composer').hidden) toast('No composer here: this session cannot send to this conversation.');
      else $('composer-text').focus();
      break;
    case 'n':
      if (!nextUnread()) toast('Nothing unread.');
      break;
    case '[':
      setSide(!sideOpen());
      break;
    case ']':
      artifactsChoice = !document.body.classList.contains('artifacts-open');
      setArtifacts(artifactsChoice);
      break;
    case 'Escape':
      if (NARROW.matches) {
        setSide(false);
        setArtifacts(false);
      }
      return;
    default:
      return;
  }
  e.preventDefault();
}

/** Binds the frame's controls; call once, before the data loads. */
export function bindLayout() {
  // A narrow screen starts on the conversation; the drawer opens on demand.
  setSide(!NARROW.matches);
  setArtifacts(false);
  NARROW.addEventListener('change', () => {
    setSide(!NARROW.matches);
    fitArtifacts();
  });
  $('toggle-side').addEventListener('click', () => setSide(!sideOpen()));
  $('toggle-artifacts').addEventListener('click', () => {
    artifactsChoice = !document.body.classList.contains('artifacts-open');
    setArtifacts(artifactsChoice);
  });
  $('help-button').addEventListener('click', () => $('help').showModal());
  // The skip link moves focus only: a #fragment in the address would be read as a conversation route.
  document.querySelector('.skip')?.addEventListener('click', (e) => {
    e.preventDefault();
    const h = $('history');
    h.setAttribute('tabindex', '-1');
    h.focus();
  });
  // Picking a conversation in the drawer shows it.
  $('side').addEventListener('click', (e) => {
    if (NARROW.matches && e.target instanceof Element && e.target.closest('a[href^="#/"]')) setSide(false);
  });
  new MutationObserver(fitArtifacts).observe($('artifacts'), { childList: true });
  document.addEventListener('keydown', onKey);
}

/** Shows the visitor's explanation when nobody is signed in. */
export function renderVisitor() {
  const s = state.session;
  const visitor = Boolean(s && !s.signed_in && s.principal === 'anonymous');
  $('visitor').hidden = !visitor;
  // Artifacts need a credential (artifacts.read): a visitor has no panel to open.
  $('toggle-artifacts').hidden = visitor;
}
