// What a campaign shows and carries besides its message: the alert's title, sound and badge, the app's custom data,
// and a variant per language, each language on its own tab whose preview is the alert that language's devices get.
import { h, replace } from './dom.js';

const languagePattern = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
const dataKeyPattern = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * The title, sound, badge and data fields, and the language tabs.
 * @param {object} draft the compose screen's draft: `title`, `sound`, `badge`, `badgeNumber`, `data` (rows of
 *   `{key, value}`), `localizations` (`{tag: {message, title, text, url}}`) and `language` (the tab shown) live in it;
 *   the fields start from what it holds (a template's content, or nothing).
 * @param {() => void} refresh called after every change, to redraw the preview and the rest of the screen.
 */
export function contentFields(draft, refresh) {
  const title = h('input', {
    id: 'title', maxlength: 200, placeholder: 'Winter sale', autocomplete: 'off', value: draft.title,
    oninput: () => { draft.title = title.value; refresh(); },
  });
  const sound = h('select', { id: 'sound', onchange: () => { draft.sound = sound.value; refresh(); } },
    h('option', { value: '' }, 'No sound'), h('option', { value: 'default' }, 'The default sound'),
    // A template may name a sound of the app's own.
    draft.sound && draft.sound !== 'default' ? h('option', { value: draft.sound }, draft.sound) : null);
  sound.value = draft.sound;
  const soundField = h('div', { class: 'field' }, h('label', { for: 'sound' }, 'Sound'), sound,
    h('p', { class: 'hint' }, 'Alerts only: a silent push never makes a sound.'));
  const badgeNumber = h('input', {
    id: 'badge-number', type: 'number', min: 0, max: 99999, value: draft.badgeNumber || 1, inputmode: 'numeric', 'aria-label': 'Badge number',
    oninput: () => { draft.badgeNumber = badgeNumber.value; },
  });
  const badge = h('select', { id: 'badge', onchange: () => { draft.badge = badge.value; refresh(); } },
    h('option', { value: '' }, 'No badge'), h('option', { value: 'number' }, 'A number'),
    h('option', { value: 'unread' }, 'Each person’s unread count'));
  badge.value = draft.badge;
  draft.badgeNumber = badgeNumber.value;

  const dataRows = h('div', { class: 'data-rows', id: 'data-rows' });
  const addData = h('button', { type: 'button', class: 'button small', id: 'add-data', onclick: () => addDataRow('', '', true) }, 'Add a key');
  function addDataRow(key, value, focus) {
    const entry = { key, value };
    draft.data.push(entry);
    const index = draft.data.length;
    const keyInput = h('input', { class: 'data-key', value: key, placeholder: 'deepLink', 'aria-label': `Key ${index}`,
      oninput: () => { entry.key = keyInput.value; } });
    const valueInput = h('input', { class: 'data-value', value, placeholder: 'shop://sale', 'aria-label': `Value ${index}`,
      oninput: () => { entry.value = valueInput.value; } });
    const row = h('div', { class: 'data-row' }, keyInput, valueInput,
      h('button', { type: 'button', class: 'button small quiet', 'aria-label': `Remove key ${index}`, onclick: () => {
        draft.data.splice(draft.data.indexOf(entry), 1);
        row.remove();
        addData.focus();
      } }, '✕'));
    dataRows.append(row);
    if (focus) keyInput.focus();
  }
  for (const { key, value } of draft.data.splice(0)) addDataRow(key, value, false);

  const tabs = h('div', { class: 'language-tabs', role: 'tablist', 'aria-label': 'Languages' });
  const panel = h('div', { class: 'language-panel', role: 'tabpanel', id: 'language-panel' });
  const newLanguage = h('input', { id: 'new-language', placeholder: 'fr or pt-BR', autocomplete: 'off', 'aria-label': 'Language tag to add',
    onkeydown: (event) => { if (event.key === 'Enter') { event.preventDefault(); addLanguage(); } } });
  const languageError = h('p', { class: 'field-error', id: 'language-error', role: 'alert', hidden: true });
  function addLanguage() {
    const tag = newLanguage.value.trim();
    const taken = Object.keys(draft.localizations).some((existing) => existing.toLowerCase() === tag.toLowerCase());
    const problem = !languagePattern.test(tag) ? `“${tag}” is not a language tag such as fr or pt-BR.`
      : taken ? `${tag} has a tab already.` : null;
    languageError.hidden = !problem;
    languageError.textContent = problem ?? '';
    if (problem) return;
    draft.localizations[tag] = { message: '', title: '', text: '', url: '' };
    newLanguage.value = '';
    showLanguage(tag);
  }
  function showLanguage(tag) {
    draft.language = tag;
    drawTabs();
    drawPanel();
    refresh();
  }
  function drawTabs() {
    replace(tabs, ...['', ...Object.keys(draft.localizations)].map((tag) => h('button', {
      type: 'button', role: 'tab', class: 'language-tab', id: `language-tab-${tag || 'default'}`,
      'aria-selected': String(draft.language === tag), 'aria-controls': 'language-panel', tabindex: draft.language === tag ? 0 : -1,
      onclick: () => showLanguage(tag),
    }, tag || 'Default')));
  }
  function drawPanel() {
    const tag = draft.language;
    if (!tag) {
      replace(panel, h('p', { class: 'hint' },
        'Devices whose language has no tab get the message and title above. Add a language to give its devices their own.'));
      return;
    }
    const variant = draft.localizations[tag];
    const input = (field, label, attributes) => {
      const id = `localized-${field}`;
      const element = h(field === 'message' ? 'textarea' : 'input', {
        id, value: variant[field], ...attributes, oninput: () => { variant[field] = element.value; refresh(); },
      });
      if (field === 'message') element.value = variant[field];
      return h('div', { class: 'field' }, h('label', { for: id }, `${label} (${tag})`), element);
    };
    // Each button's label in this language lives on the button itself, so removing a button takes its labels along.
    const buttonLabels = draft.actions.map((action, index) => {
      const id = `localized-action-${index}`;
      const element = h('input', {
        id, class: 'localized-action', maxlength: 40, value: action.labels?.[tag] ?? '', placeholder: action.label || 'The label above',
        oninput: () => { action.labels = { ...action.labels, [tag]: element.value }; refresh(); },
      });
      return h('div', { class: 'field' }, h('label', { for: id }, `Button ${index + 1} label (${tag})`), element);
    });
    panelButtons = draft.actions.length;
    replace(panel,
      input('message', 'Message', { rows: 2, maxlength: 1000, placeholder: 'The message above, unless you write one' }),
      input('title', 'Title', { maxlength: 200, placeholder: 'The title above, unless you write one' }),
      ...buttonLabels,
      draft.richType === 'text' ? input('text', 'Text', { placeholder: 'The text above, unless you write one' }) : null,
      draft.richType === 'url' ? input('url', 'Link', { type: 'url', placeholder: 'The link above, unless you give one' }) : null,
      h('button', { type: 'button', class: 'button small quiet', id: 'remove-language', onclick: () => {
        delete draft.localizations[tag];
        showLanguage('');
      } }, `Remove ${tag}`),
    );
  }
  let panelButtons = 0;
  drawTabs();
  drawPanel();
  let panelRichType = draft.richType;

  const element = h('div', { class: 'content-fields' },
    h('div', { class: 'field' }, h('label', { for: 'title' }, 'Title'), title,
      h('p', { class: 'hint' }, 'The alert’s first line. Without one, devices say what kind of content it is.')),
    h('div', { class: 'field-row' },
      soundField,
      h('div', { class: 'field' }, h('label', { for: 'badge' }, 'Badge'), h('div', { class: 'inline' }, badge, badgeNumber)),
    ),
    h('fieldset', { class: 'field' }, h('legend', {}, 'Data for the app'),
      h('p', { class: 'hint' }, 'Keys and values the app reads, such as a deep link. Up to 20 keys.'), dataRows, addData),
    h('fieldset', { class: 'field' }, h('legend', {}, 'Languages'),
      tabs, panel,
      h('div', { class: 'inline' }, newLanguage, h('button', { type: 'button', class: 'button small', id: 'add-language', onclick: addLanguage }, 'Add language')),
      languageError),
  );

  return {
    element,
    /** Shows what depends on the push style and the rich type. */
    update() {
      soundField.hidden = draft.pushStyle !== 'alert';
      badgeNumber.hidden = draft.badge !== 'number';
      // The text or link field of a language follows the rich type; redrawn only then, not while someone types.
      if (panelRichType !== draft.richType || (draft.language && panelButtons !== draft.actions.length)) {
        panelRichType = draft.richType;
        drawPanel();
      }
    },
  };
}

/** The content fields of POST /api/notifications from the draft, or an Error naming what is wrong. */
export function buildContent(draft, notification) {
  if (draft.title.trim()) notification.title = draft.title.trim();
  if (draft.pushStyle === 'alert' && draft.sound) notification.sound = draft.sound;
  if (draft.badge === 'unread') notification.badge = 'unread';
  if (draft.badge === 'number') {
    const number = Number(draft.badgeNumber);
    if (!Number.isInteger(number) || number < 0 || number > 99999) throw new Error('The badge is a whole number from 0 to 99999.');
    notification.badge = number;
  }
  const data = {};
  for (const { key, value } of draft.data) {
    if (!key.trim() && !value) continue;
    if (!dataKeyPattern.test(key.trim())) throw new Error(`“${key}” cannot be a data key: a letter, then letters, digits or _.`);
    data[key.trim()] = value;
  }
  if (Object.keys(data).length) notification.data = data;
  const localizations = {};
  for (const [tag, variant] of Object.entries(draft.localizations)) {
    const fields = {};
    for (const field of ['message', 'title', 'text', 'url']) {
      const relevant = field === 'text' ? draft.richType === 'text' : field === 'url' ? draft.richType === 'url' : true;
      if (relevant && variant[field].trim()) fields[field] = variant[field].trim();
    }
    if (Object.keys(fields).length) localizations[tag] = fields;
  }
  if (Object.keys(localizations).length) notification.localizations = localizations;
}

/** The draft as the devices of the language shown on the tabs see it, for the preview. */
export function variantOf(draft) {
  const variant = draft.language ? draft.localizations[draft.language] : null;
  return {
    ...draft,
    actions: draft.actions.map((action) => ({ ...action, label: action.labels?.[draft.language]?.trim() || action.label })),
    message: variant?.message.trim() || draft.message,
    title: variant?.title.trim() || draft.title,
    text: variant?.text.trim() || draft.text,
    url: variant?.url.trim() || draft.url,
  };
}
