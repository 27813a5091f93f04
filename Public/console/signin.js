// The sign-in screen: Basic credentials checked once, then a browser session (see Api.signIn).
import { Api } from './api.js';
import { errorBox, h, showError } from './dom.js';

export function renderSignIn(main, app, reason) {
  const error = errorBox('sign-in-error');
  const username = h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit', class: 'button primary wide', id: 'sign-in' }, 'Sign in');
  const form = h('form', { class: 'sign-in-form', novalidate: true, 'aria-labelledby': 'sign-in-title' },
    h('div', { class: 'field' }, h('label', { for: 'username' }, 'Username'), username),
    h('div', { class: 'field' }, h('label', { for: 'password' }, 'Password'), password),
    error,
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!username.value.trim() || !password.value) {
      showError(error, new Error('Enter your username and password.'));
      (username.value.trim() ? password : username).focus();
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    showError(error, null);
    try {
      app.signIn(await Api.signIn(username.value.trim(), password.value));
    } catch (failure) {
      showError(error, failure);
      password.select();
      password.focus();
    } finally {
      submit.disabled = false;
      submit.textContent = 'Sign in';
    }
  });
  main.replaceChildren(
    h('section', { class: 'sign-in' },
      h('div', { class: 'sign-in-card' },
        h('img', { src: 'logo.png', alt: '', width: 64, height: 64, class: 'sign-in-logo' }),
        h('h1', { id: 'sign-in-title', tabindex: -1 }, 'Sign in to richpush'),
        h('p', { class: 'lede' }, 'Compose image campaigns, pick an audience and watch them reach your users’ devices.'),
        reason ? h('p', { class: 'notice', role: 'status' }, reason) : null,
        form,
      ),
    ),
  );
  username.focus();
}
