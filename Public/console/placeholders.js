// The Mustache placeholders of templates ({{percent}}): which ones a campaign's texts hold, and the texts with them
// filled in for the preview. The gateway fills them in for real; this only has to agree on what a placeholder is.

// {{name}}, {{{name}}} and {{& name}}, and the name of a section ({{#name}} … {{/name}}), which also needs a value.
const placeholderPattern = /\{\{(\{)?\s*([&#^]?)\s*([A-Za-z0-9_-]+)\s*\}?\}\}/g;

/** The distinct placeholder names in `texts`, in the order they first appear. */
export function placeholdersIn(texts) {
  const names = [];
  for (const text of texts) {
    for (const match of String(text ?? '').matchAll(placeholderPattern)) {
      if (!names.includes(match[3])) names.push(match[3]);
    }
  }
  return names;
}

/** `text` with each plain placeholder that has a value replaced by it; the others stay as typed. */
export function fillPlaceholders(text, variables) {
  return String(text ?? '').replace(placeholderPattern, (whole, _brace, sigil, name) =>
    (sigil === '' || sigil === '&') && variables[name] ? variables[name] : whole);
}

/** Every text of a campaign or template that may hold placeholders: message, title, text, link, data values, languages. */
export function templatedTexts(fields) {
  const texts = [fields.message, fields.title, fields.text, fields.url];
  const data = Array.isArray(fields.data) ? fields.data.map((row) => row.value) : Object.values(fields.data ?? {});
  texts.push(...data);
  for (const localization of Object.values(fields.localizations ?? {})) {
    texts.push(localization.message, localization.title, localization.text, localization.url);
  }
  return texts;
}

/** `text` cut into its plain parts and its placeholders, in order, so a placeholder can be shown apart. */
export function placeholderParts(text) {
  const parts = [];
  let last = 0;
  for (const match of String(text ?? '').matchAll(placeholderPattern)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), placeholder: false });
    parts.push({ text: match[0], placeholder: true });
    last = match.index + match[0].length;
  }
  if (last < String(text ?? '').length) parts.push({ text: text.slice(last), placeholder: false });
  return parts;
}
