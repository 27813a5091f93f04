// The audit trail, for admins: who did what to which user, token, campaign, template or segment, and when; newest
// first, an older page at a time.
import { count, errorBox, h, showError } from './dom.js';

// With seconds: several events often fall in the same minute.
const moment = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function renderAudit(main, app) {
  const error = errorBox('audit-error');
  const summary = h('p', { class: 'meta', id: 'audit-summary', tabindex: -1, 'aria-live': 'polite' }, 'Reading the audit trail…');
  const body = h('tbody', {});
  const table = h('table', { class: 'records audit', id: 'audit-table', 'aria-busy': 'true' },
    h('caption', { class: 'visually-hidden' }, 'Audit trail, newest first'),
    h('thead', {}, h('tr', {}, ['Time', 'Actor', 'Action', 'Target', 'Details'].map((label) => h('th', { scope: 'col' }, label)))),
    body);
  const older = h('button', { type: 'button', class: 'button quiet', id: 'audit-older', hidden: true }, 'Older events');
  let next = null;
  let gone = false;

  async function load(before) {
    older.disabled = true;
    try {
      const page = await app.api.audit(before);
      if (gone) return;
      body.append(...page.items.map(row));
      next = page.next ?? null;
      older.hidden = next === null;
      table.setAttribute('aria-busy', 'false');
      const shown = count(body.children.length, 'event', 'events');
      summary.textContent = body.children.length
        ? `${shown}, newest first${next === null ? '; that is all of them.' : '.'}`
        : 'Nothing has happened yet.';
      showError(error, null);
      // The button goes with the last page: the focus moves to what says so rather than to the page's start.
      if (before && next === null) summary.focus();
    } catch (failure) {
      showError(error, failure);
    } finally {
      older.disabled = false;
    }
  }

  older.addEventListener('click', () => load(next));
  main.replaceChildren(
    h('div', { class: 'page-head' },
      h('h1', { id: 'audit-title', tabindex: -1 }, 'Audit'),
      h('p', { class: 'lede' }, 'Who created, removed or re-roled users, made or revoked tokens, sent, canceled or recalled campaigns, '
        + 'and changed templates and segments. Times are in your time zone.')),
    h('div', { class: 'panel' },
      summary, error,
      h('div', { class: 'table-wrap' }, table),
      older),
  );
  load();
  return () => { gone = true; };
}

function row(event) {
  return h('tr', { 'data-event': event.id, 'data-action': event.action },
    h('th', { scope: 'row', 'data-label': 'Time' }, h('time', { datetime: event.at }, moment.format(new Date(event.at)))),
    h('td', { 'data-label': 'Actor' }, event.actor),
    h('td', { 'data-label': 'Action' }, h('code', {}, event.action)),
    h('td', { 'data-label': 'Target' }, h('span', { class: 'mono' }, event.target)),
    h('td', { 'data-label': 'Details' }, event.details ?? h('span', { class: 'muted' }, '—')),
  );
}
