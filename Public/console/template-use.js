// A campaign started from a template: the template's content as the compose screen's starting point, a field for
// each of its placeholders, and a request that names the template and carries only what was changed in compose.
import { h, replace } from './dom.js';
import { placeholdersIn, templatedTexts } from './placeholders.js';

// The fields of a template that a notification takes too; the rest (name, version, description…) are the template's own.
const campaignFields = ['message', 'richType', 'imageId', 'url', 'text', 'audience', 'pushStyle', 'title', 'sound', 'badge',
  'category', 'threadId', 'data', 'localizations', 'expiresIn', 'deliveryRate'];

/** The parts of the compose draft a template fills in. */
export function draftFromTemplate(template) {
  const localizations = {};
  for (const [tag, fields] of Object.entries(template.localizations ?? {})) {
    localizations[tag] = { message: fields.message ?? '', title: fields.title ?? '', text: fields.text ?? '', url: fields.url ?? '' };
  }
  return {
    richType: template.richType ?? 'img',
    image: template.imageId ? { id: template.imageId, bitmap: null } : null,
    url: template.url ?? '',
    text: template.text ?? '',
    message: template.message ?? '',
    pushStyle: template.pushStyle ?? 'silent',
    title: template.title ?? '',
    sound: template.sound ?? '',
    badge: template.badge === undefined ? '' : template.badge === 'unread' ? 'unread' : 'number',
    badgeNumber: typeof template.badge === 'number' ? String(template.badge) : '1',
    data: Object.entries(template.data ?? {}).map(([key, value]) => ({ key, value })),
    localizations,
    expiry: template.expiresIn ? 'template' : 'never',
    deliveryRate: template.deliveryRate ? String(template.deliveryRate) : '',
    actions: (template.actions ?? []).map((action) => ({
      id: action.id, label: action.label, kind: action.kind, url: action.url ?? '', method: action.method ?? 'POST', body: action.body ?? '',
      labels: Object.fromEntries(Object.entries(template.localizations ?? {}).flatMap(([tag, fields]) =>
        (fields.actions ?? []).filter((entry) => entry.id === action.id).map((entry) => [tag, entry.label]))),
    })),
    interruptionLevel: template.interruptionLevel ?? '',
  };
}

/**
 * Which template the campaign comes from, and an input for each placeholder its texts hold now (the texts may be
 * edited, so the list follows them).
 * @param {object} draft the compose draft; the values typed live in `draft.variables`.
 */
export function templatePanel(template, draft, refresh) {
  draft.variables = {};
  const fields = h('div', { class: 'variables', id: 'variables' });
  let shown = null;

  function update() {
    const names = placeholdersIn(templatedTexts(draft));
    // Redrawn only when the placeholders change, so typing in a field never loses its focus.
    if (shown === names.join(' ')) return;
    shown = names.join(' ');
    replace(fields, names.length
      ? names.map((name) => {
        const input = h('input', { id: `variable-${name}`, autocomplete: 'off', value: draft.variables[name] ?? '', oninput: () => {
          draft.variables[name] = input.value;
          refresh();
        } });
        return h('div', { class: 'field' }, h('label', { for: `variable-${name}` }, h('code', {}, `{{${name}}}`)), input);
      })
      : h('p', { class: 'hint' }, 'The template has no placeholders to fill in.'));
  }

  const element = h('section', { class: 'panel template-use', 'aria-labelledby': 'template-use-title' },
    h('div', { class: 'template-use-head' },
      h('h2', { id: 'template-use-title' }, 'From a template'),
      h('a', { href: '#/compose', class: 'button small quiet', id: 'drop-template' }, 'Start from scratch')),
    h('p', {}, h('strong', {}, template.name), ` · version ${template.version}`, template.description ? ` · ${template.description}` : ''),
    h('p', { class: 'hint' }, 'Its content is filled in below. What you change is sent instead of the template’s; a field you empty takes the template’s again.'),
    h('fieldset', { class: 'field' }, h('legend', {}, 'Placeholders'),
      h('p', { class: 'hint' }, 'The value of each placeholder in the message, title, text, link, data and languages.'),
      fields),
  );
  update();
  return { element, update };
}

/** Turns the full notification compose built into one that names `template`: the placeholders' values, and only the
 * fields that differ from the template's. Throws an Error naming an empty placeholder. */
export function applyTemplate(template, draft, notification) {
  const variables = {};
  for (const name of placeholdersIn(templatedTexts(draft))) {
    const value = (draft.variables[name] ?? '').trim();
    if (!value) throw new Error(`Fill in the placeholder {{${name}}}.`);
    variables[name] = value;
  }
  for (const field of campaignFields) {
    if (field in notification && canonical(notification[field]) === canonical(template[field])) delete notification[field];
  }
  // Data and languages emptied in compose stay empty: an empty object replaces the template's.
  for (const field of ['data', 'localizations']) {
    if (!(field in notification) && Object.keys(template[field] ?? {}).length) notification[field] = {};
  }
  notification.template = template.name;
  if (Object.keys(variables).length) notification.variables = variables;
}

/** JSON with the keys of every object sorted, so equal content compares equal whatever order it was typed in. */
function canonical(value) {
  if (value === undefined) return 'undefined';
  return JSON.stringify(value, (_key, inner) => (inner && typeof inner === 'object' && !Array.isArray(inner)
    ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : inner));
}
