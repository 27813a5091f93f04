// Who is signed in and the session's CSRF value, kept for this tab only: sessionStorage ends with the tab. The
// credential itself is the session's HttpOnly cookie, which no script of the page can read; no password is kept.

const key = 'richpush.session';

export function loadSession() {
  try {
    const session = JSON.parse(sessionStorage.getItem(key));
    return session && session.csrf && session.username ? session : null;
  } catch {
    return null;
  }
}

export function saveSession(session) {
  sessionStorage.setItem(key, JSON.stringify(session));
}

export function clearSession() {
  sessionStorage.removeItem(key);
}
