// The campaign's buttons (up to three: open a link, have the gateway call a URL, dismiss) and how loudly the push may
// interrupt. The preview shows the buttons under the alert as they are typed.
import { h } from './dom.js';

const maximumButtons = 3;
const kinds = [
  ['open', 'Open a link'],
  ['http', 'Call a URL from the gateway'],
  ['dismiss', 'Dismiss'],
];
const levels = [
  ['', 'As the device decides'],
  ['passive', 'Passive: quietly, in the list only'],
  ['active', 'Active: a normal alert'],
  ['time-sensitive', 'Time-sensitive: through focus, kept on screen'],
];

/**
 * The buttons and interruption fields.
 * @param {object} draft the compose screen's draft: `actions` (rows of `{id?, label, kind, url, method, body, labels}`,
 *   `labels` a language's label by tag, typed on its tab) and
 *   `interruptionLevel` live in it.
 * @param {boolean} isAdmin whether to offer the critical level, which only admins send.
 * @param {() => void} refresh called after every change, to redraw the preview.
 */
export function actionsField(draft, isAdmin, refresh) {
  const rows = h('div', { class: 'action-rows', id: 'action-rows' });
  const add = h('button', { type: 'button', class: 'button small', id: 'add-action', onclick: () => addRow({ label: '', kind: 'open', url: '', method: 'POST', body: '' }, true) },
    'Add a button');
  function addRow(action, focus) {
    draft.actions.push(action);
    const index = draft.actions.length;
    const label = h('input', { class: 'action-label', maxlength: 40, value: action.label, placeholder: 'Shop now', 'aria-label': `Button ${index} label`,
      oninput: () => { action.label = label.value; refresh(); } });
    const kind = h('select', { class: 'action-kind', 'aria-label': `Button ${index} does`, onchange: () => { action.kind = kind.value; show(); refresh(); } },
      kinds.map(([value, text]) => h('option', { value }, text)));
    kind.value = action.kind;
    const url = h('input', { class: 'action-url', type: 'url', inputmode: 'url', value: action.url, placeholder: 'https://shop.example/sale',
      'aria-label': `Button ${index} link`, oninput: () => { action.url = url.value; } });
    const method = h('select', { class: 'action-method', 'aria-label': `Button ${index} method`, onchange: () => { action.method = method.value; show(); } },
      h('option', { value: 'POST' }, 'POST'), h('option', { value: 'GET' }, 'GET'));
    method.value = action.method;
    const body = h('input', { class: 'action-body', value: action.body, placeholder: '{"remindIn":"1d"}', 'aria-label': `Button ${index} request body`,
      oninput: () => { action.body = body.value; } });
    function show() {
      url.hidden = action.kind === 'dismiss';
      method.hidden = action.kind !== 'http';
      body.hidden = action.kind !== 'http' || action.method !== 'POST';
    }
    const row = h('div', { class: 'action-row' }, label, kind, url, method, body,
      h('button', { type: 'button', class: 'button small quiet action-remove', 'aria-label': `Remove button ${index}`, onclick: () => {
        draft.actions.splice(draft.actions.indexOf(action), 1);
        row.remove();
        add.disabled = false;
        add.focus();
        refresh();
      } }, '✕'));
    show();
    rows.append(row);
    add.disabled = draft.actions.length >= maximumButtons;
    if (focus) label.focus();
    refresh();
  }
  for (const action of draft.actions.splice(0)) addRow(action, false);

  const level = h('select', { id: 'interruption-level', 'aria-describedby': 'interruption-hint', onchange: () => { draft.interruptionLevel = level.value; } },
    levels.map(([value, text]) => h('option', { value }, text)),
    isAdmin ? h('option', { value: 'critical' }, 'Critical: through silent mode (when the gateway allows it)') : null);
  level.value = draft.interruptionLevel;

  return h('div', { class: 'actions-fields' },
    h('fieldset', { class: 'field' }, h('legend', {}, 'Buttons'),
      h('p', { class: 'hint' }, 'Up to three, shown under the alert on phones, browsers and desktops. A call is made by the gateway, once per person, ',
        'so the device needs no credentials for it.'),
      rows, add),
    h('div', { class: 'field' }, h('label', { for: 'interruption-level' }, 'Interruption'), level,
      h('p', { class: 'hint', id: 'interruption-hint' }, 'How loudly the alert may interrupt: iOS focus modes and Android channels honour it.')),
  );
}

/** The `actions` and `interruptionLevel` of POST /api/notifications from the draft, or an Error naming what is wrong. */
export function buildActions(draft, notification) {
  const ids = new Set();
  const actions = draft.actions.filter((action) => action.label.trim() || action.url.trim()).map((action, index) => {
    const label = action.label.trim();
    if (!label) throw new Error(`Button ${index + 1} needs a label.`);
    // A template's buttons keep their ids, which its languages' labels name.
    const id = action.id && !ids.has(action.id) ? action.id : uniqueId(label, ids);
    ids.add(id);
    const button = { id, label, kind: action.kind };
    if (action.kind !== 'dismiss') {
      let link;
      try { link = new URL(action.url.trim()); } catch { link = null; }
      if (link?.protocol !== 'https:') throw new Error(`The button “${label}” needs an https link.`);
      button.url = action.url.trim();
    }
    if (action.kind === 'http') {
      button.method = action.method;
      if (action.method === 'POST' && action.body.trim()) button.body = action.body.trim();
    }
    return button;
  });
  if (actions.length) notification.actions = actions;
  // Each language's labels, by the ids just made, beside the language's other fields.
  for (const tag of Object.keys(draft.localizations)) {
    const labels = actions.flatMap((button, index) => {
      const label = draft.actions.filter((action) => action.label.trim() || action.url.trim())[index].labels?.[tag]?.trim();
      return label ? [{ id: button.id, label }] : [];
    });
    if (!labels.length) continue;
    notification.localizations = notification.localizations ?? {};
    notification.localizations[tag] = { ...notification.localizations[tag], actions: labels };
  }
  if (draft.interruptionLevel) notification.interruptionLevel = draft.interruptionLevel;
}

/** An id made from the label, as `richpush send --action` makes it: lower-case letters and digits, the rest `-`. */
function uniqueId(label, taken) {
  const base = label.toLowerCase().replace(/[^a-z0-9]/g, '-').slice(0, 32).replace(/^-+$/, '') || 'action';
  let id = base;
  for (let number = 2; taken.has(id); number += 1) id = `${base.slice(0, 30)}-${number}`;
  return id;
}
