// Device fields for the audience: a language, a time zone and a lowest app version, written as the tags and the
// comparison the gateway gives every installation (language:fr, timezone:Europe/Berlin, appVersion >= 2.3), so nobody
// has to remember how they are spelled.
import { h } from './dom.js';

const languagePattern = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
const zonePattern = /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/;
const versionPattern = /^\d{1,9}(\.\d{1,9}){0,3}$/;
// Only for suggestions and spelling: a zone the browser does not know may still be one a device reports.
const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

/**
 * @param {(clause: string) => void} onAdd called with the clauses to add to the expression, joined with &&.
 */
export function audienceHelper(onAdd) {
  const language = h('input', { id: 'helper-language', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none', placeholder: 'fr or pt-br' });
  const zone = h('input', {
    id: 'helper-timezone', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'none', list: 'helper-timezones',
    placeholder: Intl.DateTimeFormat().resolvedOptions().timeZone || 'Europe/Berlin',
  });
  const version = h('input', { id: 'helper-version', autocomplete: 'off', inputmode: 'decimal', placeholder: '2.3' });
  const problem = h('p', { class: 'field-error', id: 'helper-error', role: 'alert', hidden: true });

  function add() {
    const clauses = [];
    const errors = [];
    const tag = language.value.trim();
    if (tag) {
      // The gateway lower-cases the language tags it gives devices.
      if (languagePattern.test(tag)) clauses.push(`language:${tag.toLowerCase()}`);
      else errors.push(`“${tag}” is not a language tag such as fr or pt-BR.`);
    }
    const typed = zone.value.trim();
    if (typed) {
      // Zone tags match exactly: take the browser's spelling of a zone it knows (europe/berlin → Europe/Berlin).
      const known = zones.find((name) => name.toLowerCase() === typed.toLowerCase());
      if (known || zonePattern.test(typed)) clauses.push(`timezone:${known ?? typed}`);
      else errors.push(`“${typed}” is not a time zone such as Europe/Berlin.`);
    }
    const lowest = version.value.trim();
    if (lowest) {
      if (versionPattern.test(lowest)) clauses.push(`appVersion >= ${lowest}`);
      else errors.push(`“${lowest}” is not an app version such as 2.3 or 2.3.1.`);
    }
    if (!errors.length && !clauses.length) errors.push('Fill in a language, a time zone or an app version first.');
    problem.textContent = errors.join(' ');
    problem.hidden = errors.length === 0;
    if (errors.length) return;
    for (const input of [language, zone, version]) input.value = '';
    onAdd(clauses.join(' && '));
  }

  // Enter adds the fields here instead of sending the campaign the helper sits in.
  const onkeydown = (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    }
  };
  for (const input of [language, zone, version]) input.addEventListener('keydown', onkeydown);

  return h('details', { class: 'audience-helper' },
    h('summary', {}, 'Narrow by device: language, time zone, app version'),
    h('div', { class: 'helper-body' },
      h('p', { class: 'hint' }, 'Devices report these when they register. Each field you fill in is added to the expression with &&.'),
      h('div', { class: 'field-row' },
        h('div', { class: 'field' }, h('label', { for: 'helper-language' }, 'Language'), language),
        h('div', { class: 'field' }, h('label', { for: 'helper-timezone' }, 'Time zone'), zone,
          h('datalist', { id: 'helper-timezones' }, zones.map((name) => h('option', { value: name })))),
        h('div', { class: 'field' }, h('label', { for: 'helper-version' }, 'Minimum app version'), version),
      ),
      problem,
      h('button', { type: 'button', class: 'button small', id: 'helper-add', onclick: add }, 'Add to the expression'),
    ),
  );
}
