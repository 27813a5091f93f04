// Small DOM helpers: build elements declaratively, announce changes, format numbers and times for people.

const properties = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'indeterminate']);

/** Creates an element: `h('button', { class: 'button', onclick }, 'Send')`. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') element.className = value;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    else if (name === 'style') element.style.cssText = value;
    else if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (properties.has(name)) element[name] = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A choice of one among a few, as a row of segments: radio buttons named `name`, each with the id `name-value`. */
export function radios(name, legend, options, checked, onChange, hint) {
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

/** A canvas showing `bitmap`: the console's Content-Security-Policy (`default-src 'self'`) loads no `blob:` images. */
export function bitmapCanvas(bitmap) {
  const canvas = h('canvas', { width: bitmap.width, height: bitmap.height });
  canvas.getContext('2d').drawImage(bitmap, 0, 0);
  return canvas;
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

let toastTimer;
/** A short message in the polite live region at the bottom of the page. */
export function toast(message) {
  const region = document.getElementById('toast');
  region.textContent = message;
  region.classList.add('visible');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => region.classList.remove('visible'), 5000);
}

/** An error box whose text is read out as soon as it appears. */
export function errorBox(id) {
  return h('div', { class: 'error-box', id, role: 'alert', hidden: true });
}

export function showError(box, error) {
  box.textContent = error ? error.message : '';
  box.hidden = !error;
}

const number = new Intl.NumberFormat();
export function count(value, one, many) {
  return `${number.format(value)} ${value === 1 ? one : many}`;
}

export function formatNumber(value) {
  return number.format(value);
}

export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export function formatTime(iso) {
  return iso ? dateTime.format(new Date(iso)) : '';
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
/** "5 minutes ago", "in 2 hours". */
export function relativeTime(iso, now = Date.now()) {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const steps = [[60, 'second'], [60, 'minute'], [24, 'hour'], [7, 'day'], [4.35, 'week'], [12, 'month'], [Infinity, 'year']];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return relative.format(Math.round(value), unit);
    value /= size;
  }
  return '';
}

/** The value for an `<input type="datetime-local">` of a Date, in the browser's zone. */
export function localInputValue(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Saves `blob` as a file named `name`, as a link with `download` would: the page's policy allows blob: downloads. */
export function saveFile(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked a moment later: the browser reads the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
