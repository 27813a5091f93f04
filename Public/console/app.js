// The console's shell: who is signed in, which screen is shown, and the move between screens.
import { Api } from './api.js';
import { clearSession, loadSession, saveSession } from './session.js';
import { renderSignIn } from './signin.js';
import { renderAudit } from './audit.js';
import { renderCompose } from './compose.js';
import { renderCampaigns } from './campaigns.js';
import { renderDevices } from './devices.js';
import { renderTemplates } from './templates.js';
import { renderTokens } from './tokens.js';
import { renderUsers, usernameFrom } from './users.js';
import { renderWebhooks } from './webhooks.js';

const screens = {
  compose: { title: 'Compose', render: renderCompose },
  campaigns: { title: 'Campaigns', render: renderCampaigns },
  templates: { title: 'Templates', render: renderTemplates },
  // A title may depend on what the screen is asked to show: #/users/alice is "alice · Users".
  users: { title: ([part]) => (part ? `${usernameFrom(part)} · Users` : 'Users'), render: renderUsers },
  devices: { title: 'Devices', render: renderDevices },
  tokens: { title: 'Tokens', render: renderTokens },
  // Only for admins: for anyone else the gateway refuses the audit trail, and #/audit shows compose instead.
  audit: { title: 'Audit', render: renderAudit, role: 'admin' },
  webhooks: { title: 'Webhooks', render: renderWebhooks, role: 'admin' },
};

const app = {
  session: loadSession(),
  api: null,
  /** Called when the shown screen goes away: screens stop their timers here. */
  leave: null,
  signedOutReason: null,

  signIn(session) {
    saveSession(session);
    this.session = session;
    this.api = new Api(session.csrf, () => this.signOut('The gateway no longer accepts your session. Sign in again.', false));
    showAccount(session);
    if (!location.hash || location.hash === '#/sign-in') location.hash = '#/compose';
    else route();
  },

  /** `ending` asks the gateway to end the session; a session it already refused needs no asking. */
  signOut(reason = null, ending = true) {
    if (ending) this.api?.endSession().catch(() => {});
    clearSession();
    this.session = null;
    this.api = null;
    this.signedOutReason = reason;
    document.getElementById('topbar').hidden = true;
    if (location.hash !== '#/sign-in') location.hash = '#/sign-in';
    else route();
  },

  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

function showAccount(session) {
  document.getElementById('topbar').hidden = false;
  document.getElementById('account-name').textContent = `${session.username} · ${session.role}`;
  document.getElementById('devices-tab').hidden = session.role !== 'admin';
  document.getElementById('audit-tab').hidden = session.role !== 'admin';
  document.getElementById('webhooks-tab').hidden = session.role !== 'admin';
}

function route() {
  if (app.leave) {
    app.leave();
    app.leave = null;
  }
  const main = document.getElementById('main');
  if (!app.session) {
    document.title = 'Sign in · richpush';
    renderSignIn(main, app, app.signedOutReason);
    app.signedOutReason = null;
    return;
  }
  // #/compose/template/winter-sale: the screen's name, then what the screen is asked to show.
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const known = Object.hasOwn(screens, name) && (!screens[name].role || screens[name].role === app.session.role);
  const screenName = known ? name : 'compose';
  const screen = screens[screenName];
  // An unknown or stale address (#/sign-in after signing in) shows compose and says so in the address bar.
  if (!known) history.replaceState(null, '', '#/compose');
  for (const link of document.querySelectorAll('.tabs a')) {
    if (link.dataset.route === screenName) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // On a phone the tabs may scroll sideways: the current one is kept in sight.
  document.querySelector('.tabs a[aria-current]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  const args = known ? rest : [];
  document.title = `${typeof screen.title === 'function' ? screen.title(args) : screen.title} · richpush`;
  app.leave = screen.render(main, app, args) ?? null;
  // Moving focus to the new heading tells screen-reader users the screen changed.
  main.querySelector('h1')?.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

document.getElementById('sign-out').addEventListener('click', () => app.signOut());
window.addEventListener('hashchange', route);

if (app.session) {
  app.api = new Api(app.session.csrf, () => app.signOut('The gateway no longer accepts your session. Sign in again.', false));
  showAccount(app.session);
}
route();
