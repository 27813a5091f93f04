// The compose screen: image, message, title, sound, badge, data and languages, audience, delivery time, expiry and
// push style, with a live preview of the alert in each language and the size of the audience; sends or schedules the
// campaign.
import { alertPreview } from './alert-preview.js';
import { audienceField } from './audience-field.js';
import { buildContent, contentFields, variantOf } from './content-fields.js';
import { count, errorBox, formatTime, h, localInputValue, showError, toast } from './dom.js';
import { imageField } from './image-field.js';

const expiries = [
  ['never', 'Never', 0],
  ['1h', 'After 1 hour', 3600],
  ['6h', 'After 6 hours', 6 * 3600],
  ['1d', 'After 1 day', 86400],
  ['3d', 'After 3 days', 3 * 86400],
  ['1w', 'After 1 week', 7 * 86400],
  ['custom', 'At a time I choose', 0],
];

function radios(name, legend, options, checked, onChange, hint) {
  return h('fieldset', { class: 'field choice' },
    h('legend', {}, legend),
    hint ? h('p', { class: 'hint' }, hint) : null,
    h('div', { class: 'segmented' },
      options.map(([value, label, detail]) => h('label', { class: 'segment' },
        h('input', { type: 'radio', name, value, id: `${name}-${value}`, checked: value === checked, onchange: () => onChange(value) }),
        h('span', {}, label, detail ? h('small', {}, detail) : null),
      ))),
  );
}

export function renderCompose(main, app) {
  const draft = {
    richType: 'img', image: null, url: '', text: '', message: '',
    audience: { expression: '', valid: false }, when: 'now', deliverAt: '', expiry: 'never', expiresAt: '', pushStyle: 'silent',
    title: '', sound: '', badge: '', badgeNumber: '1', data: [], localizations: {}, language: '',
  };
  const preview = alertPreview();
  const error = errorBox('compose-error');
  const submit = h('button', { type: 'submit', class: 'button primary wide', id: 'send' }, 'Send now');

  const refresh = () => {
    preview.update(variantOf(draft));
    content.update();
    const reach = draft.audience.valid ? ` to ${count(draft.audience.installations, 'device', 'devices')}` : '';
    submit.textContent = (draft.when === 'later' ? 'Schedule' : 'Send now') + reach;
    messageCounter.textContent = `${draft.message.length} / 1000`;
    for (const [type, element] of Object.entries(payloadFields)) element.hidden = type !== draft.richType;
    scheduleField.hidden = draft.when !== 'later';
    customExpiry.hidden = draft.expiry !== 'custom';
  };

  const message = h('textarea', {
    id: 'message', name: 'message', rows: 3, maxlength: 1000, required: true, placeholder: 'Winter sale: 30% off everything until Sunday',
    'aria-describedby': 'message-counter', oninput: () => { draft.message = message.value; refresh(); },
  });
  const messageCounter = h('span', { class: 'counter', id: 'message-counter' });
  const url = h('input', { id: 'url', type: 'url', inputmode: 'url', placeholder: 'https://shop.example.com/sale', oninput: () => { draft.url = url.value; refresh(); } });
  const text = h('textarea', { id: 'text', rows: 4, oninput: () => { draft.text = text.value; refresh(); } });
  const content = contentFields(draft, () => refresh());
  const payloadFields = {
    img: h('div', { class: 'field' }, h('span', { class: 'label', id: 'image-label' }, 'Image'),
      imageField(app.api, (image) => { draft.image = image; refresh(); })),
    url: h('div', { class: 'field' }, h('label', { for: 'url' }, 'Link to open'), url),
    text: h('div', { class: 'field' }, h('label', { for: 'text' }, 'Text to show'), text),
  };
  const deliverAt = h('input', {
    type: 'datetime-local', id: 'deliver-at', value: localInputValue(new Date(Date.now() + 3600_000)),
    oninput: () => { draft.deliverAt = deliverAt.value; },
  });
  draft.deliverAt = deliverAt.value;
  const scheduleField = h('div', { class: 'field indent' }, h('label', { for: 'deliver-at' }, 'Deliver at (your time)'), deliverAt);
  const expiresAt = h('input', { type: 'datetime-local', id: 'expires-at', oninput: () => { draft.expiresAt = expiresAt.value; } });
  const customExpiry = h('div', { class: 'field indent' }, h('label', { for: 'expires-at' }, 'Expires at (your time)'), expiresAt);
  const expiry = h('select', { id: 'expiry', onchange: () => { draft.expiry = expiry.value; refresh(); } },
    expiries.map(([value, label]) => h('option', { value }, label)));

  const form = h('form', { class: 'compose-form', novalidate: true, 'aria-labelledby': 'compose-title' },
    h('section', { class: 'panel', 'aria-labelledby': 'content-title' },
      h('h2', { id: 'content-title' }, 'Content'),
      radios('richType', 'Rich content', [['img', 'Image'], ['url', 'Link'], ['text', 'Text']], draft.richType,
        (value) => { draft.richType = value; refresh(); }),
      payloadFields.img, payloadFields.url, payloadFields.text,
      h('div', { class: 'field' },
        h('div', { class: 'label-row' }, h('label', { for: 'message' }, 'Message'), messageCounter),
        message),
      content.element,
    ),
    h('section', { class: 'panel', 'aria-labelledby': 'audience-title' },
      h('h2', { id: 'audience-title' }, 'Audience'),
      audienceField(app.api, (audience) => { draft.audience = audience; refresh(); }),
    ),
    h('section', { class: 'panel', 'aria-labelledby': 'delivery-title' },
      h('h2', { id: 'delivery-title' }, 'Delivery'),
      radios('when', 'When', [['now', 'Now'], ['later', 'Later']], draft.when, (value) => { draft.when = value; refresh(); }),
      scheduleField,
      h('div', { class: 'field' }, h('label', { for: 'expiry' }, 'Expires'), expiry,
        h('p', { class: 'hint' }, 'After it expires, devices that have not fetched it yet no longer can.')),
      customExpiry,
      radios('pushStyle', 'Push style',
        [['silent', 'Silent', 'The app fetches the image and raises the alert'], ['alert', 'Alert', 'A visible alert on iOS, enriched by the app']],
        draft.pushStyle, (value) => { draft.pushStyle = value; refresh(); }),
    ),
    h('div', { class: 'send-bar' }, error, submit),
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let notification;
    try {
      notification = build(draft);
    } catch (problem) {
      showError(error, problem);
      return;
    }
    showError(error, null);
    submit.disabled = true;
    try {
      const created = await app.api.createNotification(notification);
      toast(created.state === 'scheduled'
        ? `Campaign ${created.id} is scheduled for ${formatTime(created.deliverAt)}.`
        : `Campaign ${created.id} is on its way.`);
      app.lastCreated = created.id;
      app.go('#/campaigns');
    } catch (failure) {
      showError(error, failure);
      error.scrollIntoView({ block: 'nearest' });
    } finally {
      submit.disabled = false;
    }
  });

  main.replaceChildren(
    h('div', { class: 'page-head' },
      h('h1', { id: 'compose-title', tabindex: -1 }, 'New campaign'),
      h('p', { class: 'lede' }, 'Drop an image, write the message, pick who gets it.'),
    ),
    h('div', { class: 'compose' },
      form,
      h('aside', { class: 'preview-column', 'aria-label': 'Preview' }, preview.element),
    ),
  );
  refresh();
}

/** The JSON of POST /api/notifications, or an Error naming what is missing. */
function build(draft) {
  const notification = { message: draft.message.trim(), richType: draft.richType, audience: draft.audience.expression, pushStyle: draft.pushStyle };
  if (draft.richType === 'img') {
    if (!draft.image) throw new Error('Add an image: drop a PNG, JPEG or WebP on the image area or choose a file.');
    notification.imageId = draft.image.id;
  } else if (draft.richType === 'url') {
    notification.url = draft.url.trim();
  } else if (draft.text) {
    notification.text = draft.text;
  }
  if (!notification.message) throw new Error('Write the message of the alert.');
  if (!notification.audience) throw new Error('Name the audience: for example username:alice or topic:sale.');
  if (!draft.audience.valid && draft.audience.error) throw new Error(draft.audience.error);
  buildContent(draft, notification);
  let start = Date.now();
  if (draft.when === 'later') {
    const at = new Date(draft.deliverAt);
    if (Number.isNaN(at.getTime())) throw new Error('Choose the delivery date and time.');
    notification.deliverAt = at.toISOString();
    start = Math.max(start, at.getTime());
  }
  const expiry = expiries.find(([value]) => value === draft.expiry);
  if (draft.expiry === 'custom') {
    const at = new Date(draft.expiresAt);
    if (Number.isNaN(at.getTime())) throw new Error('Choose when the campaign expires.');
    notification.expiresAt = at.toISOString();
  } else if (expiry && expiry[2] > 0) {
    notification.expiresAt = new Date(start + expiry[2] * 1000).toISOString();
  }
  return notification;
}
