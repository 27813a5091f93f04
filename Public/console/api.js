// The gateway's HTTP API, as the console speaks it: signed in once with Basic credentials, then through the
// browser session's HttpOnly cookie, with the CSRF value on every change; every failure turned into the sentence the
// API returns.

/** An error answered by the gateway (or the network), carrying the API's human sentence as its message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** `Basic …` for a username and password, UTF-8 safe. */
export function basicAuthorization(username, password) {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** Paths are relative, so the console also works behind a proxy that serves the gateway under a prefix. */
export function apiPath(path) {
  return path.replace(/^\//, '');
}

/** The names of the browser sessions' own tokens, which the session endpoints make and end: not a script's. */
export const sessionTokenNames = ['browser session', 'browser session from a token'];

export class Api {
  /**
   * @param {string} csrf the session's `X-Richpush-CSRF` value, sent with every change
   * @param {() => void} onSignedOut called when the gateway no longer accepts the session
   */
  constructor(csrf, onSignedOut = () => {}) {
    this.csrf = csrf;
    this.onSignedOut = onSignedOut;
  }

  /**
   * Signs the browser in as `username`: the credentials are checked without cookies first (a wrong password then
   * comes back to the console rather than opening the browser's own password box), a member is refused, and
   * `POST /api/session` sets the session's cookie. Answers `{username, role, csrf}`.
   */
  static async signIn(username, password) {
    const authorization = basicAuthorization(username, password);
    const checking = new Api(null);
    const me = await checking.request('GET', '/api/users/me', { authorization, credentials: 'omit' });
    if (me.role === 'member') throw new Error(`This console is for marketers and admins; ${me.username} is a member.`);
    const response = await checking.send('POST', '/api/session', { authorization });
    return { username: me.username, role: me.role, csrf: response.headers.get('X-Richpush-CSRF') };
  }

  /** Ends the session on the gateway: its cookie is cleared and its token revoked everywhere. */
  endSession() { return this.request('DELETE', '/api/session'); }

  me() { return this.request('GET', '/api/users/me'); }
  uploadImage(file) { return this.request('POST', '/api/images', { body: file, contentType: file.type || 'application/octet-stream' }); }
  createNotification(notification) { return this.request('POST', '/api/notifications', { json: notification }); }
  notifications(before) { return this.request('GET', `/api/notifications?limit=20${before ? `&before=${before}` : ''}`); }
  status(id) { return this.request('GET', `/api/notifications/${id}/status`); }
  removeNotification(id) { return this.request('DELETE', `/api/notifications/${id}`); }
  countAudience(expression, signal) { return this.request('GET', `/api/audiences/count?expression=${encodeURIComponent(expression)}`, { signal }); }
  installations() { return this.request('GET', '/api/installations?limit=1000'); }
  removeInstallation(id) { return this.request('DELETE', `/api/installations/${encodeURIComponent(id)}`); }
  segments(username) { return this.request('GET', `/api/users/${encodeURIComponent(username)}/segments`); }
  /** Replaces the user's whole list of segments; the answer is the list as the gateway keeps it (sorted, once each). */
  putSegments(username, segments) { return this.request('PUT', `/api/users/${encodeURIComponent(username)}/segments`, { json: { segments } }); }
  /** A page of templates by name, those after `after`; the answer's `next` is the following page's `after`. */
  templates(after) { return this.request('GET', `/api/templates?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`); }
  template(name) { return this.request('GET', `/api/templates/${encodeURIComponent(name)}`); }
  createTemplate(template) { return this.request('POST', '/api/templates', { json: template }); }
  updateTemplate(name, template) { return this.request('PUT', `/api/templates/${encodeURIComponent(name)}`, { json: template }); }
  removeTemplate(name) { return this.request('DELETE', `/api/templates/${encodeURIComponent(name)}`); }
  timeline(id, step) { return this.request('GET', `/api/notifications/${id}/timeline?step=${step}`); }
  tokens() { return this.request('GET', '/api/tokens'); }
  /** The answer holds the secret (`token`): the gateway never shows it again. */
  createToken(token) { return this.request('POST', '/api/tokens', { json: token }); }
  revokeToken(id) { return this.request('DELETE', `/api/tokens/${encodeURIComponent(id)}`); }
  webhooks() { return this.request('GET', '/api/webhooks'); }
  webhookAttempts(id, limit) { return this.request('GET', `/api/webhooks/${encodeURIComponent(id)}/attempts?limit=${limit}`); }
  setWebhookEnabled(id, enabled) { return this.request('PATCH', `/api/webhooks/${encodeURIComponent(id)}`, { json: { enabled } }); }
  audit(before) { return this.request('GET', `/api/audit?limit=50${before ? `&before=${before}` : ''}`); }
  /** Every delivery of a campaign as one CSV file, for a spreadsheet. */
  deliveriesCSV(id) { return this.download(`/api/notifications/${id}/deliveries?format=csv`, 'text/csv'); }

  async request(method, path, options = {}) {
    const response = await this.send(method, path, options);
    const text = await response.text();
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      return null;
    }
  }

  /** A file the gateway answers, as a Blob: the Authorization header rules out a plain link. */
  async download(path, accept) {
    const response = await this.send('GET', path, { accept });
    return response.blob();
  }

  /** The gateway's answer when it is a success; otherwise an ApiError with the API's sentence. */
  async send(method, path, { json, body, contentType, signal, accept = 'application/json', authorization, credentials = 'same-origin' } = {}) {
    const headers = { Accept: accept };
    if (authorization) headers.Authorization = authorization;
    if (this.csrf && method !== 'GET' && method !== 'HEAD') headers['X-Richpush-CSRF'] = this.csrf;
    if (json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(json);
    } else if (contentType) {
      headers['Content-Type'] = contentType;
    }
    let response;
    try {
      // The session's cookie goes along; a session that ended is challenged as Bearer, which opens no password box.
      response = await fetch(apiPath(path), { method, headers, body, signal, credentials, cache: 'no-store' });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      throw new ApiError(0, 'network', 'The gateway cannot be reached. Check your connection and try again.');
    }
    if (!response.ok) {
      let data = null;
      try {
        data = JSON.parse(await response.text());
      } catch {
        data = null;
      }
      const detail = data && data.error;
      const error = detail
        ? new ApiError(detail.status, detail.code, detail.message)
        : new ApiError(response.status, `http.${response.status}`, `The gateway answered ${response.status} ${response.statusText}.`);
      if (response.status === 401 && !authorization) this.onSignedOut(error);
      throw error;
    }
    return response;
  }
}
