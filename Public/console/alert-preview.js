// How the alert will look on a Linux desktop: richpushd raises a freedesktop notification with the message and
// the image inside it.
import { bitmapCanvas, h, replace } from './dom.js';

export function alertPreview() {
  const summary = h('p', { class: 'alert-summary', id: 'preview-title' });
  const body = h('div', { class: 'alert-body' });
  const media = h('div', { class: 'alert-media' });
  const buttons = h('div', { class: 'alert-buttons', id: 'preview-buttons' });
  const card = h('div', { class: 'alert-card', 'aria-hidden': 'true' },
    h('div', { class: 'alert-header' },
      h('img', { src: 'logo.png', alt: '', width: 18, height: 18 }),
      h('span', { class: 'alert-app' }, 'richpush'),
      h('span', { class: 'alert-time' }, 'now'),
    ),
    summary,
    body,
    media,
    buttons,
  );
  const description = h('p', { class: 'visually-hidden', id: 'preview-description' });
  const element = h('figure', { class: 'alert-preview' },
    h('div', { class: 'desktop' }, card),
    h('figcaption', {}, 'Desktop alert preview'),
    description,
  );

  function update(draft) {
    const message = draft.message.trim() || 'Your message appears here';
    summary.textContent = draft.title.trim() || { img: 'New image', url: 'New link', text: 'New message' }[draft.richType];
    replace(body, h('p', { class: draft.message.trim() ? '' : 'placeholder' }, message));
    if (draft.richType === 'img') {
      replace(media, draft.image?.bitmap ? bitmapCanvas(draft.image.bitmap) : h('div', { class: 'media-placeholder' }, 'Image'));
    } else if (draft.richType === 'url') {
      let host = draft.url.trim();
      try { host = new URL(host).host; } catch { /* shown as typed until it is a URL */ }
      replace(media, h('div', { class: 'media-link' }, '🔗 ', host || 'the link'));
    } else {
      replace(media, h('div', { class: 'media-text' }, draft.text.trim().slice(0, 140) || 'The text'));
    }
    const labels = (draft.actions ?? []).map((action) => action.label.trim()).filter(Boolean);
    replace(buttons, ...labels.map((label) => h('span', { class: 'alert-button' }, label)));
    buttons.hidden = labels.length === 0;
    description.textContent = `Preview${draft.language ? ` in ${draft.language}` : ''}: an alert from richpush titled “${summary.textContent}” saying “${message}”` +
      (draft.richType === 'img' ? (draft.image ? ', with the image' : ', waiting for an image') : '') +
      (labels.length ? `, and the buttons ${labels.map((label) => `“${label}”`).join(', ')}.` : '.');
  }
  return { element, update };
}
