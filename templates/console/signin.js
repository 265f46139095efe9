// On the sign-in page: when the session cookie exists but the navigation did not carry it (a
// SameSite=Strict cookie is withheld after a cross-site redirect), reload once from this origin.

const KEY = 'svc.console.signin-retry';
try {
  const res = await fetch('/console/api/session', { credentials: 'same-origin' });
  const body = res.ok ? await res.json() : undefined;
  if (body?.signed_in && sessionStorage.getItem(KEY) === null) {
    sessionStorage.setItem(KEY, '1');
    location.replace('/console/');
  } else if (!body?.signed_in) {
    sessionStorage.removeItem(KEY);
  }
} catch {
  // stay on the sign-in page
}
