// The audience: a Notification Hubs tag expression, checked by the gateway as it is typed, with the number of
// devices and people it reaches right now.
import { audienceHelper } from './audience-helper.js';
import { count, h } from './dom.js';

const examples = [
  ['Linux desktops', 'platform:direct'],
  ['Sale followers, not French', 'topic:sale && !language:fr'],
  ['App 2.3 and later', 'appVersion >= 2.3'],
];

/**
 * @param {import('./api.js').Api} api
 * @param {(audience: {expression: string, valid: boolean, installations?: number, recipients?: number}) => void} onChange
 */
export function audienceField(api, onChange, initial = '') {
  const input = h('input', {
    id: 'audience', name: 'audience', class: 'mono', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none',
    placeholder: 'username:alice || (topic:sale && !language:fr)', value: initial, 'aria-describedby': 'audience-hint audience-reach',
  });
  const reach = h('p', { class: 'reach', id: 'audience-reach', 'aria-live': 'polite' });
  let timer = null;
  let controller = null;

  function show(kind, text) {
    reach.className = `reach ${kind}`;
    reach.textContent = text;
    input.setAttribute('aria-invalid', kind === 'invalid' ? 'true' : 'false');
  }

  async function check() {
    const expression = input.value.trim();
    controller?.abort();
    if (!expression) {
      show('', 'Name who receives it: a user, a topic, a platform, or any mix with && || ! and parentheses.');
      onChange({ expression, valid: false });
      return;
    }
    controller = new AbortController();
    show('checking', 'Counting…');
    try {
      const size = await api.countAudience(expression, controller.signal);
      const platforms = Object.entries(size.platforms).filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`).join(', ');
      show(size.installations > 0 ? 'valid' : 'empty',
        `Reaches ${count(size.installations, 'device', 'devices')} of ${count(size.recipients, 'person', 'people')}` +
        (platforms ? ` (${platforms})` : '') + (size.installations === 0 ? ' right now.' : '.'));
      onChange({ expression, valid: true, installations: size.installations, recipients: size.recipients });
    } catch (failure) {
      if (failure.name === 'AbortError') return;
      show('invalid', failure.message);
      onChange({ expression, valid: false, error: failure.message });
    }
  }

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(check, 250);
  });
  const helper = audienceHelper((clause) => {
    const current = input.value.trim();
    // && binds tighter than ||: an expression with || is kept whole in parentheses.
    input.value = !current ? clause : current.includes('||') ? `(${current}) && ${clause}` : `${current} && ${clause}`;
    clearTimeout(timer);
    check();
  });
  const chips = h('div', { class: 'chips', role: 'group', 'aria-label': 'Example audiences' },
    examples.map(([label, expression]) => h('button', {
      type: 'button', class: 'chip', title: expression,
      onclick: () => { input.value = expression; input.focus(); check(); },
    }, label)));
  check();
  return h('div', { class: 'field' },
    h('label', { for: 'audience' }, 'Tag expression'),
    h('p', { class: 'hint', id: 'audience-hint' },
      'A tag expression: ', h('code', {}, 'username:alice'), ', ', h('code', {}, 'topic:sale && !language:fr'),
      '. Every device also carries ', h('code', {}, 'username:'), ', ', h('code', {}, 'installation:'), ', ', h('code', {}, 'platform:'),
      ', ', h('code', {}, 'language:'), ', ', h('code', {}, 'timezone:'), ' and ', h('code', {}, 'appversion:'), ' tags, and ',
      h('code', {}, 'appVersion >= 2.3'), ' compares versions.'),
    input, chips, reach, helper);
}
