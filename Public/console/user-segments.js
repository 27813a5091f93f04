// One user's segments: each with how many devices and people its audience reaches now, removed with a button and
// added by name. Every change is a PUT of the whole list made from the list as the gateway has it at that moment,
// so a change another marketer made since the screen opened is kept rather than overwritten.
import { count, errorBox, h, replace, showError, toast } from './dom.js';
import { segmentPrefix, segmentTag } from './segments.js';

// While shown, each segment's reach follows the devices that register or go, but not more often than this.
const refreshEvery = 5000;

/**
 * @param {import('./api.js').Api} api
 * @param {string} username
 * @returns {{element: HTMLElement, stop: () => void}}
 */
export function userSegments(api, username) {
  const error = errorBox('segments-error');
  const summary = h('p', { class: 'meta', id: 'segments-summary' }, `Reading the segments of ${username}…`);
  const list = h('ul', { class: 'segment-list', id: 'segment-list', 'aria-labelledby': 'segments-title', 'aria-busy': 'true' });
  const input = h('input', {
    id: 'new-segment', name: 'segment', class: 'mono', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false',
    placeholder: 'vip', 'aria-describedby': 'new-segment-hint segments-error',
  });
  const add = h('button', { type: 'submit', class: 'button primary', id: 'add-segment' }, 'Add');
  const form = h('form', { class: 'add-segment', id: 'add-segment-form', novalidate: true, hidden: true },
    h('label', { for: 'new-segment' }, 'Add a segment'),
    h('p', { class: 'hint', id: 'new-segment-hint' },
      'A name such as ', h('code', {}, 'vip'), ', with ', h('code', {}, segmentPrefix), ' put in front if it is missing. ',
      'Names are letters, digits and ', h('code', {}, '_ @ # . : -'), '.'),
    h('div', { class: 'add-segment-row' }, input, add));
  const element = h('section', { class: 'panel user-segments', 'aria-labelledby': 'segments-title' },
    h('div', { class: 'user-segments-head' }, h('h2', { id: 'segments-title' }, 'Segments'), summary),
    list, form, error);
  /** The reach shown for each segment on the list, by segment. */
  let reaches = new Map();
  let segments = [];
  let busy = false;
  let timer = null;
  let stopped = false;

  function show() {
    reaches = new Map();
    replace(list, segments.map(item));
    list.setAttribute('aria-busy', 'false');
    summary.textContent = segments.length
      ? `${username} is in ${count(segments.length, 'segment', 'segments')}.`
      : `${username} is in no segment yet.`;
    countAll();
  }

  function item(segment) {
    const reach = h('span', { class: 'segment-reach' }, 'Counting…');
    reaches.set(segment, reach);
    const remove = h('button', { type: 'button', class: 'button quiet small danger', 'aria-label': `Remove ${username} from ${segment}` }, 'Remove');
    remove.addEventListener('click', async () => {
      const place = segments.indexOf(segment);
      const saved = await save((current) => current.filter((other) => other !== segment), `${username} is no longer in ${segment}.`);
      // The button went with its segment: focus moves to the one now in its place, else to where segments are added.
      if (saved) (list.children[Math.min(place, list.children.length - 1)]?.querySelector('button') ?? input).focus();
    });
    return h('li', { class: 'segment-item', 'data-segment': segment },
      h('span', { class: 'tag segment-tag' }, segment), reach, remove);
  }

  async function countAll() {
    await Promise.all([...reaches].map(async ([segment, reach]) => {
      try {
        const size = await api.countAudience(segment);
        reach.textContent = `Reaches ${count(size.installations, 'device', 'devices')} of ${count(size.recipients, 'person', 'people')}`;
        reach.className = `segment-reach ${size.installations > 0 ? 'valid' : 'empty'}`;
      } catch (failure) {
        reach.textContent = failure.message;
        reach.className = 'segment-reach invalid';
      }
    }));
  }

  async function poll() {
    if (stopped) return;
    if (document.visibilityState === 'visible' && !busy) await countAll();
    timer = setTimeout(poll, refreshEvery);
  }

  /** Saves `edit` of the gateway's current list; true once saved, false when the gateway refused it (and says why). */
  async function save(edit, said) {
    busy = true;
    element.setAttribute('aria-busy', 'true');
    for (const button of element.querySelectorAll('button')) button.disabled = true;
    try {
      const current = await api.segments(username);
      const answer = await api.putSegments(username, edit(current.segments));
      if (stopped) return false;
      segments = answer.segments;
      showError(error, null);
      show();
      toast(said);
      return true;
    } catch (failure) {
      if (!stopped) showError(error, failure);
      return false;
    } finally {
      busy = false;
      element.setAttribute('aria-busy', 'false');
      for (const button of element.querySelectorAll('button')) button.disabled = false;
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) return;
    const segment = segmentTag(input.value);
    const refusal = !input.value.trim() ? 'Type the name of a segment, such as vip.'
      : segments.includes(segment) ? `${username} is already in ${segment}.` : null;
    if (refusal) {
      showError(error, new Error(refusal));
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    const saved = await save((current) => [...current, segment], `${username} is now in ${segment}.`);
    input.setAttribute('aria-invalid', saved ? 'false' : 'true');
    if (saved) input.value = '';
    input.focus();
  });
  input.addEventListener('input', () => input.setAttribute('aria-invalid', 'false'));

  api.segments(username).then((answer) => {
    if (stopped) return;
    segments = answer.segments;
    form.hidden = false;
    show();
    timer = setTimeout(poll, refreshEvery);
  }, (failure) => {
    if (stopped) return;
    // No such user: nothing to list or add to. The sentence says so; "Find a user" beside it is where to go next.
    summary.textContent = '';
    list.setAttribute('aria-busy', 'false');
    showError(error, failure);
  });

  return {
    element,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
