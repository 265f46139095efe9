// Message times: a short relative label ("just now", "5 min ago") with the full date and time in
// the title, kept current once a minute; and the day labels of the separators.

const MINUTE = 60_000;

/** The relative label of `iso` as seen at `now` (ms). Older than 12 h: the time of day (the day separator names the day). */
export function relativeLabel(iso, now = Date.now()) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const ago = now - t;
  if (ago < MINUTE) return 'just now';
  if (ago < 60 * MINUTE) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < 12 * 60 * MINUTE) return `${Math.floor(ago / (60 * MINUTE))} h ago`;
  return new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The absolute date and time of `iso`, for titles. */
export function absoluteTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString([], { dateStyle: 'full', timeStyle: 'medium' });
}

/** The local calendar day of `iso` as a key (YYYY-MM-DD), or '' when it is not a date. */
export function dayKey(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The separator label of a day: Today, Yesterday, or the date. */
export function dayLabel(iso, now = new Date()) {
  const key = dayKey(iso);
  if (key === dayKey(now.toISOString())) return 'Today';
  const y = new Date(now);
  y.setDate(y.getDate() - 1);
  if (key === dayKey(y.toISOString())) return 'Yesterday';
  return new Date(iso).toLocaleDateString([], { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
}

/** A <time> element with the relative label, the absolute title and the ISO datetime. */
export function timeNode(iso) {
  const t = document.createElement('time');
  t.setAttribute('datetime', iso ?? '');
  t.title = absoluteTime(iso);
  t.dataset.rel = '';
  t.textContent = relativeLabel(iso);
  return t;
}

setInterval(() => {
  const now = Date.now();
  for (const t of document.querySelectorAll('time[data-rel]')) t.textContent = relativeLabel(t.getAttribute('datetime'), now);
}, MINUTE);
