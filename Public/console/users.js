// The users screen: find someone by the name they sign in with (#/users), then see and change their segments
// (#/users/NAME). The API lists no users: admins also arrive here from an installation's owner on the devices screen.
import { errorBox, h, showError } from './dom.js';
import { userSegments } from './user-segments.js';

/** The address of a user's screen. */
export function userAddress(username) {
  return `#/users/${encodeURIComponent(username)}`;
}

/** The username in an address's last part; one that is not valid percent-encoding is taken as typed. */
export function usernameFrom(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function renderUsers(main, app, [part] = []) {
  const username = part ? usernameFrom(part) : null;
  const find = findForm(app, username);
  if (!username) {
    main.replaceChildren(
      h('div', { class: 'page-head' },
        h('h1', { id: 'users-title', tabindex: -1 }, 'Users'),
        h('p', { class: 'lede' }, 'Find someone to see and change the segments they are in.')),
      h('div', { class: 'panel find-user-panel' }, find, aboutSegments()));
    return null;
  }
  const segments = userSegments(app.api, username);
  main.replaceChildren(
    h('div', { class: 'page-head' },
      h('p', { class: 'eyebrow' }, h('a', { href: '#/users' }, 'Users')),
      h('h1', { id: 'user-title', tabindex: -1 }, username),
      h('p', { class: 'lede' }, `The segments ${username} is in, and how many devices each one reaches.`)),
    h('div', { class: 'user-layout' },
      segments.element,
      h('aside', { class: 'panel user-aside', 'aria-label': 'Other users' }, find, aboutSegments())));
  return () => segments.stop();
}

function aboutSegments() {
  return h('p', { class: 'hint about-segments' },
    'Segments are tags such as ', h('code', {}, 'segment:vip'), ' that only marketers and admins assign. Every device ',
    'of the user carries them, today’s and later ones, so a campaign’s audience can name them; no device sets one itself.');
}

/** "Find a user": opens the screen of the name typed; Enter does it. */
function findForm(app, current) {
  const input = h('input', {
    id: 'find-user', name: 'username', type: 'search', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false',
    placeholder: 'alice', value: current ?? '', 'aria-describedby': current ? null : 'find-user-hint',
  });
  const error = errorBox('find-user-error');
  const form = h('form', { class: 'find-user', id: 'find-user-form', role: 'search', novalidate: true },
    h('label', { for: 'find-user' }, 'Find a user'),
    current ? null : h('p', { class: 'hint', id: 'find-user-hint' }, 'The name they sign in with.'),
    h('div', { class: 'find-user-row' },
      input, h('button', { type: 'submit', class: 'button', id: 'open-user' }, 'Open')),
    error);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const username = input.value.trim();
    if (!username) {
      showError(error, new Error('Type a username, such as alice.'));
      input.focus();
      return;
    }
    app.go(userAddress(username));
  });
  return form;
}
