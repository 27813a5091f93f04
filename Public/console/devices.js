// The devices screen: an admin's view of every installation, with its owner, platform, tags and health.
import { confirmDialog } from './dialog.js';
import { count, errorBox, formatTime, h, relativeTime, replace, showError, toast } from './dom.js';

export function renderDevices(main, app) {
  const error = errorBox('devices-error');
  const filter = h('input', { id: 'device-filter', type: 'search', placeholder: 'alice, apns, topic:sale…', autocomplete: 'off' });
  const summary = h('p', { class: 'meta', id: 'device-summary', 'aria-live': 'polite' });
  const body = h('tbody', {});
  const table = h('table', { class: 'devices', id: 'device-table' },
    h('caption', { class: 'visually-hidden' }, 'Installations'),
    h('thead', {}, h('tr', {},
      ['Installation', 'Owner', 'Platform', 'Tags', 'Updated', 'Health', ''].map((label) => h('th', { scope: 'col' }, label)))),
    body);
  const dialog = confirmDialog();
  let installations = [];

  function show() {
    const words = filter.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const shown = installations.filter((item) => {
      const haystack = [item.installationId, item.owner, item.platform, ...item.tags].join(' ').toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    summary.textContent = words.length
      ? `${count(shown.length, 'installation', 'installations')} of ${installations.length} match.`
      : `${count(installations.length, 'installation', 'installations')}.`;
    replace(body, shown.map(row));
  }

  function row(item) {
    const own = item.tags.filter((tag) => !/^(username|installation|platform):/.test(tag));
    const remove = h('button', { type: 'button', class: 'button quiet small danger', 'aria-label': `Remove installation ${item.installationId}` }, 'Remove');
    remove.addEventListener('click', async () => {
      const confirmed = await dialog.ask(`Remove installation ${item.installationId}?`,
        `The device of ${item.owner} stops receiving pushes until it registers again; its pending deliveries fail.`, 'Remove', 'Keep it');
      if (!confirmed) return;
      try {
        await app.api.removeInstallation(item.installationId);
        installations = installations.filter((other) => other.installationId !== item.installationId);
        toast(`Installation ${item.installationId} is removed.`);
        show();
      } catch (failure) {
        showError(error, failure);
      }
    });
    return h('tr', {},
      h('th', { scope: 'row', 'data-label': 'Installation' }, h('code', {}, item.installationId)),
      h('td', { 'data-label': 'Owner' }, item.owner),
      h('td', { 'data-label': 'Platform' }, h('span', { class: `platform platform-${item.platform}` }, item.platform)),
      h('td', { 'data-label': 'Tags' }, own.length ? own.map((tag) => h('span', { class: 'tag' }, tag)) : h('span', { class: 'muted' }, 'none')),
      h('td', { 'data-label': 'Updated' }, h('time', { datetime: item.updatedAt, title: formatTime(item.updatedAt) }, relativeTime(item.updatedAt))),
      h('td', { 'data-label': 'Health' }, item.deadAt
        ? h('span', { class: 'badge state-failed', title: `Since ${formatTime(item.deadAt)}` }, `gone: ${item.deadReason ?? 'reported by its hub'}`)
        : h('span', { class: 'badge state-delivered' }, 'live')),
      h('td', { class: 'actions' }, remove),
    );
  }

  filter.addEventListener('input', show);
  main.replaceChildren(
    h('div', { class: 'page-head' },
      h('h1', { id: 'devices-title', tabindex: -1 }, 'Devices'),
      h('p', { class: 'lede' }, app.session.role === 'admin'
        ? 'Every installation registered with this gateway.'
        : 'Your own installations; admins see everyone’s.')),
    h('div', { class: 'panel' },
      h('div', { class: 'field' }, h('label', { for: 'device-filter' }, 'Filter'), filter),
      summary, error,
      h('div', { class: 'table-wrap' }, table)),
    dialog.element,
  );
  app.api.installations().then((page) => {
    installations = page.items;
    show();
  }, (failure) => showError(error, failure));
}
