// The compose screen: image, message, title, sound, badge, data and languages, buttons and interruption, an A/B test,
// audience, delivery time, expiry and push style, with a live preview of the alert in each language and the size of the audience; sends or
// schedules the campaign, from scratch or from a template (#/compose/template/NAME).
import { actionsField, buildActions } from './actions-field.js';
import { alertPreview } from './alert-preview.js';
import { audienceField } from './audience-field.js';
import { buildContent, contentFields, variantOf } from './content-fields.js';
import { count, errorBox, formatTime, h, localInputValue, radios, showError, toast } from './dom.js';
import { imageField } from './image-field.js';
import { fillPlaceholders } from './placeholders.js';
import { applyTemplate, draftFromTemplate, templatePanel } from './template-use.js';
import { buildVariants, variantsField } from './variants-field.js';

// Sent as expiresIn: the gateway counts it from the delivery, which for a local time only it knows (each zone's).
const expiries = [
  ['never', 'Never'],
  ['1h', 'After 1 hour'],
  ['6h', 'After 6 hours'],
  ['1d', 'After 1 day'],
  ['3d', 'After 3 days'],
  ['1w', 'After 1 week'],
  ['custom', 'At a time I choose'],
];
// Sent as fallback.after: a device that has not fetched the payload this long after its silent push gets one alert.
const fallbacks = [
  ['', 'As the gateway says'],
  ['PT5M', 'After 5 minutes'],
  ['PT10M', 'After 10 minutes'],
  ['PT1H', 'After 1 hour'],
  ['PT6H', 'After 6 hours'],
];
const localTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?/;

/** The screen, at once or, for #/compose/template/NAME, once that template is read. */
export function renderCompose(main, app, [from, name] = []) {
  if (from !== 'template' || !name) {
    composeScreen(main, app, null);
    return null;
  }
  let gone = false;
  const error = errorBox('compose-error');
  main.replaceChildren(
    h('div', { class: 'page-head' },
      h('h1', { id: 'compose-title', tabindex: -1 }, 'New campaign'),
      h('p', { class: 'lede', role: 'status' }, `Reading the template ${name}…`)),
    error);
  app.api.template(name).then((template) => {
    if (gone) return;
    composeScreen(main, app, template);
    main.querySelector('h1')?.focus({ preventScroll: true });
  }, (failure) => {
    if (gone) return;
    showError(error, failure);
    error.after(h('p', {}, h('a', { href: '#/templates' }, 'Back to the templates'), ' · ', h('a', { href: '#/compose' }, 'Start from scratch')));
  });
  return () => { gone = true; };
}

function composeScreen(main, app, template) {
  const draft = {
    richType: 'img', image: null, url: '', text: '', message: '',
    audience: { expression: '', valid: false }, when: 'now', deliverAt: '', deliverAtLocal: '', expiry: 'never', expiresAt: '', pushStyle: 'silent', fallback: '',
    deliveryRate: '',
    title: '', sound: '', badge: '', badgeNumber: '1', data: [], localizations: {}, language: '', actions: [], interruptionLevel: '',
    ...(template ? draftFromTemplate(template) : {}),
  };
  const preview = alertPreview();
  const error = errorBox('compose-error');
  const submit = h('button', { type: 'submit', class: 'button primary wide', id: 'send' }, 'Send now');

  // Some fields refresh while they are being built, before the rest of the screen exists: not until it is ready.
  let ready = false;
  const refresh = () => {
    if (!ready) return;
    templateUse?.update();
    preview.update(filled(variantOf(draft), draft.variables));
    content.update();
    const reach = draft.audience.valid ? ` to ${count(draft.audience.installations, 'device', 'devices')}` : '';
    submit.textContent = (draft.when === 'now' ? 'Send now' : 'Schedule') + reach;
    messageCounter.textContent = `${draft.message.length} / 1000`;
    for (const [type, element] of Object.entries(payloadFields)) element.hidden = type !== draft.richType;
    scheduleField.hidden = draft.when !== 'later';
    localField.hidden = draft.when !== 'local';
    customExpiry.hidden = draft.expiry !== 'custom';
    fallbackField.hidden = draft.pushStyle !== 'silent';
  };

  const message = h('textarea', {
    id: 'message', name: 'message', rows: 3, maxlength: 1000, required: true, placeholder: 'Winter sale: 30% off everything until Sunday',
    'aria-describedby': 'message-counter', oninput: () => { draft.message = message.value; refresh(); },
  });
  message.value = draft.message;
  const messageCounter = h('span', { class: 'counter', id: 'message-counter' });
  const url = h('input', { id: 'url', type: 'url', inputmode: 'url', placeholder: 'https://shop.example.com/sale', value: draft.url, oninput: () => { draft.url = url.value; refresh(); } });
  const text = h('textarea', { id: 'text', rows: 4, oninput: () => { draft.text = text.value; refresh(); } });
  text.value = draft.text;
  const templateUse = template ? templatePanel(template, draft, () => refresh()) : null;
  const content = contentFields(draft, () => refresh());
  const variants = variantsField(draft, () => refresh());
  const actions = actionsField(draft, app.session.role === 'admin', () => refresh());
  const payloadFields = {
    img: h('div', { class: 'field' }, h('span', { class: 'label', id: 'image-label' }, 'Image'),
      imageField(app.api, (image) => { draft.image = image; refresh(); }, draft.image?.id)),
    url: h('div', { class: 'field' }, h('label', { for: 'url' }, 'Link to open'), url),
    text: h('div', { class: 'field' }, h('label', { for: 'text' }, 'Text to show'), text),
  };
  const deliverAt = h('input', {
    type: 'datetime-local', id: 'deliver-at', value: localInputValue(new Date(Date.now() + 3600_000)),
    oninput: () => { draft.deliverAt = deliverAt.value; },
  });
  draft.deliverAt = deliverAt.value;
  const scheduleField = h('div', { class: 'field indent' }, h('label', { for: 'deliver-at' }, 'Deliver at (your time)'), deliverAt);
  const tomorrow = new Date(Date.now() + 86400_000);
  tomorrow.setHours(9, 0, 0, 0);
  const deliverAtLocal = h('input', {
    type: 'datetime-local', id: 'deliver-at-local', value: localInputValue(tomorrow), 'aria-describedby': 'deliver-at-local-hint',
    oninput: () => { draft.deliverAtLocal = deliverAtLocal.value; },
  });
  draft.deliverAtLocal = deliverAtLocal.value;
  const localField = h('div', { class: 'field indent' }, h('label', { for: 'deliver-at-local' }, 'Deliver at (each device’s time)'), deliverAtLocal,
    h('p', { class: 'hint', id: 'deliver-at-local-hint' },
      'Each device gets it when its own clock shows this time, in its own time zone: Tokyo hours before Berlin, Berlin before New York. ',
      'Devices that report no zone use the gateway’s.'));
  const expiresAt = h('input', { type: 'datetime-local', id: 'expires-at', oninput: () => { draft.expiresAt = expiresAt.value; } });
  const customExpiry = h('div', { class: 'field indent' }, h('label', { for: 'expires-at' }, 'Expires at (your time)'), expiresAt);
  const expiry = h('select', { id: 'expiry', onchange: () => { draft.expiry = expiry.value; refresh(); } },
    template?.expiresIn ? h('option', { value: 'template' }, `As the template says: after ${template.expiresIn}`) : null,
    // A template's lifetime can be changed but not removed: the API has no way to say "never" over it.
    expiries.filter(([value]) => !(template?.expiresIn && value === 'never')).map(([value, label]) => h('option', { value }, label)));
  expiry.value = draft.expiry;
  const fallback = h('select', { id: 'fallback', 'aria-describedby': 'fallback-hint', onchange: () => { draft.fallback = fallback.value; } },
    fallbacks.map(([value, label]) => h('option', { value }, label)));
  fallback.value = draft.fallback;
  const fallbackField = h('div', { class: 'field', id: 'fallback-field' }, h('label', { for: 'fallback' }, 'Alert devices that have not fetched it'),
    fallback,
    h('p', { class: 'hint', id: 'fallback-hint' },
      'Phones hold back silent pushes (Low Power Mode, Doze). A phone or browser that has not fetched the content by then gets one ',
      'visible alert instead; one whose user has seen it on any device gets none.'));
  const deliveryRate = h('input', {
    id: 'delivery-rate', type: 'number', inputmode: 'numeric', min: 60, step: 1, placeholder: 'As fast as the hubs take them',
    value: draft.deliveryRate, 'aria-describedby': 'delivery-rate-hint', oninput: () => { draft.deliveryRate = deliveryRate.value; },
  });
  const deliveryRateField = h('div', { class: 'field' }, h('label', { for: 'delivery-rate' }, 'Pushes a minute'), deliveryRate,
    h('p', { class: 'hint', id: 'delivery-rate-hint' },
      'Spreads the campaign evenly, so its devices do not all fetch the image at once: 6000 sends a hundred a second. ',
      'Leave it empty to send as fast as the hubs take them.'));

  const form = h('form', { class: 'compose-form', novalidate: true, 'aria-labelledby': 'compose-title' },
    templateUse?.element,
    h('section', { class: 'panel', 'aria-labelledby': 'content-title' },
      h('h2', { id: 'content-title' }, 'Content'),
      radios('richType', 'Rich content', [['img', 'Image'], ['url', 'Link'], ['text', 'Text']], draft.richType,
        (value) => { draft.richType = value; refresh(); }),
      payloadFields.img, payloadFields.url, payloadFields.text,
      h('div', { class: 'field' },
        h('div', { class: 'label-row' }, h('label', { for: 'message' }, 'Message'), messageCounter),
        message),
      content.element,
      actions,
    ),
    h('section', { class: 'panel', 'aria-labelledby': 'ab-title' },
      h('h2', { id: 'ab-title' }, 'A/B test'),
      variants,
    ),
    h('section', { class: 'panel', 'aria-labelledby': 'audience-title' },
      h('h2', { id: 'audience-title' }, 'Audience'),
      audienceField(app.api, (audience) => { draft.audience = audience; refresh(); }, template?.audience ?? ''),
    ),
    h('section', { class: 'panel', 'aria-labelledby': 'delivery-title' },
      h('h2', { id: 'delivery-title' }, 'Delivery'),
      radios('when', 'When', [['now', 'Now'], ['later', 'Later'], ['local', 'At a local time']], draft.when,
        (value) => { draft.when = value; refresh(); }),
      scheduleField,
      localField,
      h('div', { class: 'field' }, h('label', { for: 'expiry' }, 'Expires'), expiry,
        h('p', { class: 'hint' }, 'After it expires, devices that have not fetched it yet no longer can.')),
      customExpiry,
      radios('pushStyle', 'Push style',
        [['silent', 'Silent', 'The app fetches the image and raises the alert'], ['alert', 'Alert', 'A visible alert on iOS, enriched by the app']],
        draft.pushStyle, (value) => { draft.pushStyle = value; refresh(); }),
      fallbackField,
      deliveryRateField,
    ),
    h('div', { class: 'send-bar' }, error, submit),
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let notification;
    try {
      notification = build(draft);
      if (template) applyTemplate(template, draft, notification);
    } catch (problem) {
      showError(error, problem);
      return;
    }
    showError(error, null);
    submit.disabled = true;
    try {
      const created = await app.api.createNotification(notification);
      toast(created.deliverAtLocal
        ? `Campaign ${created.id} is scheduled for ${formatTime(created.deliverAtLocal)} on each device’s clock.`
        : created.state === 'scheduled'
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
      h('p', { class: 'lede' }, template
        ? `From the template ${template.name}: fill in its placeholders, change what you like, pick who gets it.`
        : 'Drop an image, write the message, pick who gets it.'),
    ),
    h('div', { class: 'compose' },
      form,
      h('aside', { class: 'preview-column', 'aria-label': 'Preview' }, preview.element),
    ),
  );
  ready = true;
  refresh();
}

/** The alert as devices will see it: the placeholders filled in with the values typed so far. */
function filled(variant, variables) {
  if (!variables) return variant;
  const fill = (text) => fillPlaceholders(text, variables);
  return { ...variant, message: fill(variant.message), title: fill(variant.title), text: fill(variant.text), url: fill(variant.url) };
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
  buildActions(draft, notification);
  buildVariants(draft, notification);
  if (draft.when === 'later') {
    const at = new Date(draft.deliverAt);
    if (Number.isNaN(at.getTime())) throw new Error('Choose the delivery date and time.');
    notification.deliverAt = at.toISOString();
  } else if (draft.when === 'local') {
    const local = localTimePattern.exec(draft.deliverAtLocal)?.[0];
    if (!local) throw new Error('Choose the date and time each device should show it.');
    // A wall-clock time without a zone, to the second: 2026-12-01T09:00:00.
    notification.deliverAtLocal = local.length === 16 ? `${local}:00` : local;
  }
  if (draft.expiry === 'custom') {
    const at = new Date(draft.expiresAt);
    if (Number.isNaN(at.getTime())) throw new Error('Choose when the campaign expires.');
    notification.expiresAt = at.toISOString();
  } else if (expiries.some(([value]) => value === draft.expiry) && draft.expiry !== 'never') {
    notification.expiresIn = draft.expiry;
  }
  if (draft.pushStyle === 'silent' && draft.fallback) notification.fallback = { after: draft.fallback, style: 'alert' };
  if (draft.deliveryRate.trim()) {
    const rate = Number(draft.deliveryRate);
    if (!Number.isInteger(rate) || rate < 60) throw new Error('The delivery rate is a whole number of pushes a minute, at least 60.');
    notification.deliveryRate = rate;
  }
  return notification;
}
