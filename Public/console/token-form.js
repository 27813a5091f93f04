// Creating an API token: a name, a role no higher than the creator's and an optional expiry in the browser's time
// zone; then its secret, shown this once, in a box with a copy button.
import { errorBox, h, localInputValue, replace, showError, toast } from './dom.js';
import { rolesUpTo } from './roles.js';

const roleDetails = {
  admin: 'admin — everything',
  marketer: 'marketer — campaigns and segments',
  member: 'member — its own devices',
};

/**
 * @param {import('./api.js').Api} api
 * @param {string} role the creator's role: the highest the token may have
 * @param {(token: object) => void} created called with the gateway's answer once a token exists
 * @returns {{element: HTMLElement, forget: (id: string) => void}}
 */
export function tokenForm(api, role, created) {
  const name = h('input', {
    id: 'token-name', name: 'name', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', maxlength: 100,
    placeholder: 'ci-deploy', 'aria-describedby': 'token-name-hint',
  });
  const roleSelect = h('select', { id: 'token-role', name: 'role', 'aria-describedby': 'token-role-hint' },
    rolesUpTo(role).map((value) => h('option', { value, selected: value === role }, roleDetails[value] ?? value)));
  const expires = h('input', { id: 'token-expires', name: 'expiresAt', type: 'datetime-local', 'aria-describedby': 'token-expires-hint' });
  const error = errorBox('token-form-error');
  const submit = h('button', { type: 'submit', class: 'button primary', id: 'create-token' }, 'Create token');
  const secretSlot = h('div', { class: 'token-secret-slot' });
  const form = h('form', { class: 'panel token-form', id: 'token-form', novalidate: true, 'aria-labelledby': 'token-form-title' },
    h('h2', { id: 'token-form-title' }, 'New token'),
    h('div', { class: 'field-row' },
      h('div', { class: 'field' },
        h('label', { for: 'token-name' }, 'Name'), name,
        h('p', { class: 'hint', id: 'token-name-hint' }, 'What uses it, so you know which one to revoke.')),
      h('div', { class: 'field' },
        h('label', { for: 'token-role' }, 'Role'), roleSelect,
        h('p', { class: 'hint', id: 'token-role-hint' }, 'At most your own role.')),
      h('div', { class: 'field' },
        h('label', { for: 'token-expires' }, 'Expires'), expires,
        h('p', { class: 'hint', id: 'token-expires-hint' }, 'Your local time. Leave it empty for a token that lasts until revoked.'))),
    error,
    h('div', { class: 'form-actions' }, submit));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const field of [name, expires]) field.removeAttribute('aria-invalid');
    const request = { name: name.value.trim(), role: roleSelect.value };
    // datetime-local has no zone: read in the browser's, and sent as the UTC instant it names.
    if (expires.value) request.expiresAt = new Date(expires.value).toISOString();
    submit.disabled = true;
    showError(error, null);
    try {
      const token = await api.createToken(request);
      name.value = '';
      expires.value = '';
      replace(secretSlot, secretBox(token, () => replace(secretSlot)));
      secretSlot.querySelector('h2').focus();
      created(token);
    } catch (failure) {
      showError(error, failure);
      const field = { 'token.invalidName': name, 'token.invalidExpiry': expires }[failure.code];
      field?.setAttribute('aria-invalid', 'true');
      (field ?? name).focus();
    } finally {
      submit.disabled = false;
    }
  });
  // The picker offers no time already past.
  expires.addEventListener('focus', () => { expires.min = localInputValue(new Date()); });

  return {
    element: h('div', { class: 'token-create' }, secretSlot, form),
    /** Takes the secret off the screen once its token is revoked. */
    forget(id) {
      if (secretSlot.firstChild?.dataset.token === id) replace(secretSlot);
    },
  };
}

/** The secret of a token just made, with the one sentence that matters: it will not be shown again. */
function secretBox(token, done) {
  const value = h('code', { class: 'token-secret-value', id: 'token-secret' }, token.token);
  const copy = h('button', { type: 'button', class: 'button primary small', id: 'copy-token' }, 'Copy');
  const close = h('button', { type: 'button', class: 'button quiet small', id: 'token-secret-done' }, 'I have copied it');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(token.token);
      toast(`The token ${token.name} is copied.`);
    } catch {
      // No clipboard (a page served over plain HTTP, or permission refused): the secret is selected for Ctrl+C.
      getSelection().selectAllChildren(value);
      toast('The browser refused to copy: the token is selected, press Ctrl+C.');
    }
  });
  close.addEventListener('click', done);
  return h('section', { class: 'panel token-secret', id: 'token-secret-box', 'data-token': token.id, 'aria-labelledby': 'token-secret-title' },
    h('h2', { id: 'token-secret-title', tabindex: -1 }, `Your new token ${token.name}`),
    h('p', { class: 'token-secret-warning', id: 'token-secret-warning' },
      'Copy it now: it will not be shown again. The gateway keeps only a fingerprint of it.'),
    h('div', { class: 'token-secret-row' }, value, copy),
    h('p', { class: 'hint' },
      'Send it as ', h('code', {}, 'Authorization: Bearer …'), ', or as the password beside your username; ',
      h('code', {}, 'richpush send'), ' and richpushd read it with ', h('code', {}, '--token-file'), '.'),
    h('div', { class: 'form-actions' }, close));
}
