// The signed-in user, kept for this tab only: sessionStorage ends with the tab, and nothing is written to disk
// for other tabs or later visits.

const key = 'richpush.session';

export function loadSession() {
  try {
    const session = JSON.parse(sessionStorage.getItem(key));
    return session && session.authorization && session.username ? session : null;
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
