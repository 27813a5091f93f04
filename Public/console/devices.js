// The devices screen: an admin's view of every installation, with its owner, platform, segments, tags and health;
// an owner's name opens their segments.
import { confirmDialog } from './dialog.js';
import { count, errorBox, formatTime, h, relativeTime, replace, showError, toast } from './dom.js';
import { isSegment } from './segments.js';
import { userAddress } from './users.js';

export function renderDevices(main, app) {
  const error = errorBox('devices-error');
  const filter = h('input', { id: 'device-filter', type: 'search', placeholder: 'alice, apns, topic:sale…', autocomplete: 'off' });
  const summary = h('p', { class: 'meta', id: 'device-summary', 'aria-live': 'polite' });
  const body = h('tbody', {});
  const table = h('table', { class: 'devices', id: 'device-table' },
    h('caption', { class: 'visually-hidden' }, 'Installations'),
    h('thead', {}, h('tr', {},
      ['Installation', 'Owner', 'Platform', 'Segments', 'Tags', 'Updated', 'Health', ''].map((label) => h('th', { scope: 'col' }, label)))),
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
    // Segments come from the owner, not the device: shown apart, so nobody looks for them in the app's settings.
    const segments = item.tags.filter(isSegment);
    const own = item.tags.filter((tag) => !isSegment(tag) && !/^(username|installation|platform):/.test(tag));
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
    return h('tr', { 'data-installation': item.installationId },
      h('th', { scope: 'row', 'data-label': 'Installation' }, h('code', {}, item.installationId)),
      h('td', { 'data-label': 'Owner' }, h('a', { href: userAddress(item.owner), title: `Segments of ${item.owner}` }, item.owner)),
      h('td', { 'data-label': 'Platform' }, h('span', { class: `platform platform-${item.platform}` }, item.platform)),
      h('td', { 'data-label': 'Segments' }, tagList(segments, 'tag segment-tag')),
      h('td', { 'data-label': 'Tags' }, tagList(own, 'tag')),
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
        ? 'Every installation registered with this gateway. Open an owner to put them in segments.'
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

/** Tags as chips in one box, which wraps them beside the cell's label on a phone. */
function tagList(tags, chip) {
  return tags.length ? h('span', { class: 'tag-list' }, tags.map((tag) => h('span', { class: chip }, tag))) : h('span', { class: 'muted' }, 'none');
}
