// The form that creates a template or stores its next version: name, description, rich content, message and title
// with {{placeholders}}, audience and lifetime. What the form does not show (data, languages, sound, an image chosen
// elsewhere) is kept from the version being changed.
import { audienceField } from './audience-field.js';
import { errorBox, h, radios, replace, showError } from './dom.js';
import { placeholdersIn, templatedTexts } from './placeholders.js';

const lifetimes = [
  ['', 'Never, unless the campaign says'],
  ['30m', 'After 30 minutes'],
  ['1h', 'After 1 hour'],
  ['6h', 'After 6 hours'],
  ['12h', 'After 12 hours'],
  ['1d', 'After 1 day'],
  ['3d', 'After 3 days'],
  ['1w', 'After 1 week'],
  ['2w', 'After 2 weeks'],
];
// What a template carries besides its campaign fields; never sent back.
const ownFields = ['name', 'version', 'createdBy', 'createdAt'];

/**
 * @param {import('./api.js').Api} api
 * @param {object | null} template the latest version to change, or null for a new template
 * @param {{saved: (template: object) => void, canceled: () => void}} on
 */
export function templateEditor(api, template, on) {
  const editing = template !== null;
  const fields = { richType: 'text', ...(template ?? {}) };
  for (const field of ownFields) delete fields[field];
  const error = errorBox('template-error');
  const input = (id, field, attributes = {}) => {
    const element = h(attributes.rows ? 'textarea' : 'input', { id, autocomplete: 'off', ...attributes, oninput: () => {
      fields[field] = element.value;
      update();
    } });
    element.value = fields[field] ?? '';
    return element;
  };

  const name = h('input', {
    id: 'template-name', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none', maxlength: 64, placeholder: 'winter-sale',
    'aria-describedby': 'template-name-hint',
  });
  const message = input('template-message', 'message', { rows: 3, maxlength: 1000, placeholder: 'Winter sale: {{percent}}% off everything', 'aria-describedby': 'template-placeholders' });
  const url = input('template-url', 'url', { type: 'url', inputmode: 'url', placeholder: 'https://shop.example.com/sale?code={{code}}' });
  const text = input('template-text', 'text', { rows: 3 });
  const found = h('p', { class: 'hint', id: 'template-placeholders', 'aria-live': 'polite' });
  const expires = h('select', { id: 'template-expires', onchange: () => { fields.expiresIn = expires.value; } },
    lifetimes.map(([value, label]) => h('option', { value }, label)),
    // A lifetime set elsewhere (the CLI, the API) that the list does not offer stays choosable.
    fields.expiresIn && !lifetimes.some(([value]) => value === fields.expiresIn) ? h('option', { value: fields.expiresIn }, `After ${fields.expiresIn}`) : null);
  expires.value = fields.expiresIn ?? '';
  const payloadFields = {
    img: h('p', { class: 'hint field' }, fields.imageId
      ? `Keeps image ${fields.imageId}; a campaign started from it may drop in another.`
      : 'Choose the image in compose, when you start a campaign from the template.'),
    url: h('div', { class: 'field' }, h('label', { for: 'template-url' }, 'Link to open'), url),
    text: h('div', { class: 'field' }, h('label', { for: 'template-text' }, 'Text to show'), text),
  };
  const submit = h('button', { type: 'submit', class: 'button primary', id: 'save-template' },
    editing ? `Save as version ${template.version + 1}` : 'Create template');

  function update() {
    for (const [type, element] of Object.entries(payloadFields)) element.hidden = type !== fields.richType;
    const names = placeholdersIn(templatedTexts(fields));
    replace(found, names.length
      ? ['Placeholders: ', names.map((placeholder, index) => [index ? ', ' : '', h('code', {}, `{{${placeholder}}}`)]),
        '. Each campaign started from it fills them in.']
      : ['Write ', h('code', {}, '{{name}}'), ' where each campaign puts its own value, such as ', h('code', {}, '{{percent}}'), '.']);
  }

  const form = h('form', { class: 'template-form', novalidate: true, 'aria-labelledby': 'template-form-title' },
    h('h2', { id: 'template-form-title', tabindex: -1 }, editing ? `Change ${template.name}` : 'New template'),
    editing
      ? h('p', { class: 'hint' }, `Saving stores version ${template.version + 1}; campaigns made from version ${template.version} keep it.`)
      : h('div', { class: 'field' }, h('label', { for: 'template-name' }, 'Name'), name,
        h('p', { class: 'hint', id: 'template-name-hint' }, 'Lower-case letters, digits and -, up to 64. Campaigns and scripts name it; it cannot change.')),
    h('div', { class: 'field' }, h('label', { for: 'template-description' }, 'Description'),
      input('template-description', 'description', { maxlength: 1000, placeholder: 'For the seasonal sales' })),
    radios('template-richType', 'Rich content', [['img', 'Image'], ['url', 'Link'], ['text', 'Text']], fields.richType,
      (value) => { fields.richType = value; update(); }),
    payloadFields.img, payloadFields.url, payloadFields.text,
    h('div', { class: 'field' }, h('label', { for: 'template-message' }, 'Message'), message, found),
    h('div', { class: 'field' }, h('label', { for: 'template-title' }, 'Title'),
      input('template-title', 'title', { maxlength: 200, placeholder: 'Winter sale' })),
    h('div', { class: 'field' }, h('span', { class: 'label' }, 'Audience'),
      h('p', { class: 'hint' }, 'Optional: a campaign started from the template may name its own.'),
      audienceField(api, (audience) => { fields.audience = audience.expression; }, fields.audience ?? '')),
    h('div', { class: 'field' }, h('label', { for: 'template-expires' }, 'Expires'), expires),
    error,
    h('div', { class: 'form-actions' },
      h('button', { type: 'button', class: 'button quiet', id: 'cancel-template', onclick: () => on.canceled() }, 'Cancel'),
      submit),
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError(error, null);
    submit.disabled = true;
    try {
      const saved = editing
        ? await api.updateTemplate(template.name, body(fields))
        : await api.createTemplate({ name: name.value.trim(), ...body(fields) });
      on.saved(saved);
    } catch (failure) {
      showError(error, failure);
      error.scrollIntoView({ block: 'nearest' });
    } finally {
      submit.disabled = false;
    }
  });
  update();
  const element = h('section', { class: 'panel template-editor', id: 'template-editor' }, form);
  return {
    element,
    focus() {
      (editing ? form.querySelector('#template-description') : name).focus();
    },
  };
}

/** The fields as POST and PUT take them: empty texts left out, and only the payload of the chosen rich type. */
function body(fields) {
  const result = {};
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value === 'string' && !value.trim()) continue;
    result[field] = typeof value === 'string' && field !== 'text' ? value.trim() : value;
  }
  if (result.richType !== 'url') delete result.url;
  if (result.richType !== 'text') delete result.text;
  if (result.richType !== 'img') delete result.imageId;
  return result;
}
