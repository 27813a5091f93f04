// The image of a campaign: dropped on the zone or picked with the file dialog, uploaded at once so a file the
// gateway refuses (not a PNG, JPEG or WebP, corrupt, too large) is reported before anything else is written.
import { bitmapCanvas, errorBox, formatBytes, h, replace, showError } from './dom.js';

/**
 * @param {import('./api.js').Api} api
 * @param {(image: {id: number, bitmap: ImageBitmap | null, width: number, height: number} | null) => void} onChange
 * @param {number} [initialId] an image already stored (a template's), used until another is picked
 */
export function imageField(api, onChange, initialId) {
  const input = h('input', { type: 'file', id: 'image-file', accept: 'image/png,image/jpeg,image/webp', class: 'visually-hidden', 'aria-describedby': 'image-hint image-state' });
  const state = h('p', { class: 'image-state', id: 'image-state', 'aria-live': 'polite' });
  const error = errorBox('image-error');
  const thumbnail = h('div', { class: 'drop-thumbnail', 'aria-hidden': 'true' });
  const zone = h('label', { class: 'drop-zone', for: 'image-file', id: 'drop-zone' },
    input,
    thumbnail,
    h('span', { class: 'drop-text' },
      h('strong', {}, 'Drop an image here'),
      h('span', {}, ' or '),
      h('span', { class: 'link-like' }, 'choose a file'),
    ),
    h('span', { class: 'hint', id: 'image-hint' }, 'PNG, JPEG or WebP, up to 10 MB. It is checked and stored as soon as you pick it.'),
  );
  let generation = 0;
  // The gateway has no way to read a stored image back, so a template's image is named rather than shown.
  if (initialId) state.textContent = `The template’s image (image ${initialId}). Drop or choose another to replace it.`;

  async function take(file) {
    if (!file) return;
    const mine = ++generation;
    // Decoded in the page and drawn on a canvas: the console's policy loads no blob: URLs.
    const bitmap = await createImageBitmap(file).catch(() => null);
    if (mine !== generation) return;
    replace(thumbnail, ...(bitmap ? [bitmapCanvas(bitmap)] : []));
    zone.classList.add('has-image', 'busy');
    showError(error, null);
    state.textContent = `Uploading ${file.name}…`;
    onChange(null);
    try {
      const image = await api.uploadImage(file);
      if (mine !== generation) return;
      state.textContent = `${file.name} · ${image.width}×${image.height} · ${formatBytes(image.bytes)} · stored as image ${image.id}`;
      onChange({ id: image.id, bitmap, width: image.width, height: image.height });
    } catch (failure) {
      if (mine !== generation) return;
      replace(thumbnail);
      zone.classList.remove('has-image');
      state.textContent = '';
      showError(error, failure);
      onChange(null);
    } finally {
      if (mine === generation) zone.classList.remove('busy');
      input.value = '';
    }
  }

  input.addEventListener('change', () => take(input.files[0]));
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    take(event.dataTransfer.files[0]);
  });
  return h('div', { class: 'image-field' }, zone, state, error);
}
