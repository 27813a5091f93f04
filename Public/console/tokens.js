// The tokens screen: API tokens for scripts and daemons, each acting as the user who made it with a role no higher
// than theirs; created here (the secret shown once), listed with when each was last used, and revoked. An admin
// sees everyone's, with their owners.
import { sessionTokenNames } from './api.js';
import { confirmDialog } from './dialog.js';
import { count, errorBox, formatTime, h, relativeTime, replace, showError, toast } from './dom.js';
import { tokenForm } from './token-form.js';

export function renderTokens(main, app) {
  const admin = app.session.role === 'admin';
  const error = errorBox('tokens-error');
  const summary = h('p', { class: 'meta', id: 'token-summary', 'aria-live': 'polite' }, 'Reading the tokens…');
  const body = h('tbody', {});
  const columns = ['Name', admin ? 'Owner' : null, 'Role', 'Created', 'Expires', 'Last used', ''].filter((label) => label !== null);
  const table = h('table', { class: 'records tokens', id: 'token-table', hidden: true },
    h('caption', { class: 'visually-hidden' }, 'API tokens'),
    h('thead', {}, h('tr', {}, columns.map((label) => h('th', { scope: 'col' }, label)))),
    body);
  const dialog = confirmDialog();
  const form = tokenForm(app.api, app.session.role, (token) => load(token.id));
  let tokens = [];
  let gone = false;

  async function load(fresh) {
    try {
      const page = await app.api.tokens();
      if (gone) return;
      // The console's own sign-ins are tokens too, but not a script's: they end with Sign out or after 7 days.
      tokens = page.items.filter((token) => !sessionTokenNames.includes(token.name)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      show(fresh);
      showError(error, null);
    } catch (failure) {
      showError(error, failure);
    }
  }

  function show(fresh) {
    replace(body, tokens.map((token) => row(token, token.id === fresh)));
    table.hidden = tokens.length === 0;
    const whose = admin ? 'Everyone’s tokens' : 'Your tokens';
    summary.textContent = tokens.length ? `${whose}: ${count(tokens.length, 'token', 'tokens')}.` : 'No tokens yet.';
  }

  function row(token, fresh) {
    const revoke = h('button', { type: 'button', class: 'button quiet small danger', 'aria-label': `Revoke token ${token.name}` }, 'Revoke');
    revoke.addEventListener('click', async () => {
      const whose = token.owner === app.session.username ? '' : ` of ${token.owner}`;
      const confirmed = await dialog.ask(`Revoke token ${token.name}${whose}?`,
        'Whatever uses it is refused from now on. This cannot be undone: a new token has a new secret.', 'Revoke token', 'Keep it');
      if (!confirmed) return;
      revoke.disabled = true;
      try {
        await app.api.revokeToken(token.id);
        const place = tokens.indexOf(token);
        tokens = tokens.filter((other) => other.id !== token.id);
        form.forget(token.id);
        toast(`Token ${token.name} is revoked.`);
        show();
        // The button went with its row: focus moves to the one now in its place, else to the form.
        (body.children[Math.min(place, body.children.length - 1)]?.querySelector('button') ?? document.getElementById('token-name')).focus();
      } catch (failure) {
        showError(error, failure);
        revoke.disabled = false;
      }
    });
    return h('tr', { id: `token-${token.id}`, 'data-token': token.id, class: fresh ? 'fresh' : null },
      h('th', { scope: 'row', 'data-label': 'Name' }, token.name),
      admin ? h('td', { 'data-label': 'Owner' }, token.owner) : null,
      h('td', { 'data-label': 'Role' }, h('span', { class: 'badge' }, token.role)),
      h('td', { 'data-label': 'Created' }, when(token.createdAt)),
      h('td', { 'data-label': 'Expires' }, when(token.expiresAt)),
      h('td', { 'data-label': 'Last used' }, when(token.lastUsedAt)),
      h('td', { class: 'actions' }, revoke),
    );
  }

  main.replaceChildren(
    h('div', { class: 'page-head' },
      h('h1', { id: 'tokens-title', tabindex: -1 }, 'Tokens'),
      h('p', { class: 'lede' }, 'Credentials for scripts and daemons, such as richpush send or richpushd, instead of your password. '
        + 'Revoke one and whatever uses it is refused at once.')),
    form.element,
    h('section', { class: 'panel', 'aria-labelledby': 'token-list-title' },
      h('h2', { id: 'token-list-title' }, admin ? 'All tokens' : 'Your tokens'),
      summary, error,
      h('div', { class: 'table-wrap' }, table)),
    dialog.element,
  );
  load();
  return () => { gone = true; };
}

/** A moment as "in 3 days" with the date and time on hover; "never" for none. */
function when(iso) {
  return iso
    ? h('time', { datetime: iso, title: formatTime(iso) }, relativeTime(iso))
    : h('span', { class: 'muted' }, 'never');
}
