// The campaigns screen: newest first, each with its state, its delivery funnel filling in (per variant in an A/B
// test), its per-device errors, its results on demand, and cancel or recall.
import { cappedNote, deliveryErrors, funnel, statePushNote, variantFunnel } from './funnel.js';
import { reachPanel } from './reach.js';
import { confirmDialog } from './dialog.js';
import { resultsDisclosure } from './results.js';
import { errorBox, formatTime, h, relativeTime, replace, showError, toast } from './dom.js';

// A refresh reads the list and one status per campaign shown: every 5 s a full page of 20 stays well within the
// gateway's default 600 requests a minute per user, with room for the rest of the console.
const refreshEvery = 5000;

export function renderCampaigns(main, app) {
  const error = errorBox('campaigns-error');
  const list = h('ul', { class: 'campaigns', id: 'campaign-list', 'aria-busy': 'true' });
  const more = h('button', { type: 'button', class: 'button quiet', id: 'older', hidden: true }, 'Show older campaigns');
  const empty = h('div', { class: 'panel empty', hidden: true },
    h('p', {}, 'No campaigns yet.'), h('a', { class: 'button primary', href: '#/compose' }, 'Compose the first one'));
  const dialog = confirmDialog();
  const cards = new Map();
  let next = null;
  let timer = null;
  let gone = false;

  async function loadPage(before) {
    try {
      const page = await app.api.notifications(before);
      for (const notification of page.items) {
        if (!cards.has(notification.id)) {
          const card = campaignCard(notification, app, dialog, () => refresh(notification.id));
          cards.set(notification.id, card);
          list.append(card.element);
        }
      }
      next = page.next;
      more.hidden = next === null;
      empty.hidden = cards.size > 0;
      list.setAttribute('aria-busy', 'false');
      showError(error, null);
      await Promise.all(page.items.map((notification) => cards.get(notification.id).update()));
    } catch (failure) {
      showError(error, failure);
    }
  }

  async function refresh(id) {
    await cards.get(id)?.update(true);
  }

  async function poll() {
    if (gone) return;
    if (document.visibilityState === 'visible') {
      // New campaigns (from another tab or the CLI) appear on top; the funnels of the shown ones fill in.
      try {
        const page = await app.api.notifications();
        for (const notification of page.items.slice().reverse()) {
          if (!cards.has(notification.id) && notification.id > Math.max(0, ...cards.keys())) {
            const card = campaignCard(notification, app, dialog, () => refresh(notification.id));
            cards.set(notification.id, card);
            list.prepend(card.element);
          }
        }
        empty.hidden = cards.size > 0;
        await Promise.all([...cards.values()].map((card) => card.update()));
        showError(error, null);
      } catch (failure) {
        showError(error, failure);
      }
    }
    if (!gone) timer = setTimeout(poll, refreshEvery);
  }

  more.addEventListener('click', () => loadPage(next));
  main.replaceChildren(
    h('div', { class: 'page-head row' },
      h('div', {},
        h('h1', { id: 'campaigns-title', tabindex: -1 }, 'Campaigns'),
        h('p', { class: 'lede' }, 'Newest first. Delivery figures update by themselves.')),
      h('a', { class: 'button primary', href: '#/compose' }, 'New campaign'),
    ),
    error, empty, list, more, dialog.element,
  );
  loadPage().then(() => {
    if (app.lastCreated && cards.has(app.lastCreated)) cards.get(app.lastCreated).element.classList.add('fresh');
    app.lastCreated = null;
    if (!gone) timer = setTimeout(poll, refreshEvery);
  });
  return () => {
    gone = true;
    clearTimeout(timer);
  };
}

function stateOf(notification, status) {
  if (notification.deletedAt) return 'recalled';
  return status?.state ?? notification.state;
}

function campaignCard(notification, app, dialog, refresh) {
  const badge = h('span', { class: 'badge' });
  const body = h('div', { class: 'campaign-figures' });
  const action = h('button', { type: 'button', class: 'button quiet small danger' });
  const actionError = errorBox(`campaign-${notification.id}-error`);
  const results = resultsDisclosure(notification, app.api);
  const titleId = `campaign-${notification.id}-title`;
  const element = h('li', { class: 'campaign panel', id: `campaign-${notification.id}`, 'aria-labelledby': titleId },
    thumbnail(notification),
    h('div', { class: 'campaign-main' },
      h('div', { class: 'campaign-head' },
        h('h2', { id: titleId }, notification.message),
        badge),
      h('p', { class: 'meta' },
        `#${notification.id} · to `, h('code', {}, notification.audience), ` · by ${notification.createdBy} · `,
        notification.deliverAtLocal
          ? h('time', { datetime: notification.deliverAtLocal, title: 'The same wall-clock time in each device’s zone' },
            `delivers ${formatTime(notification.deliverAtLocal)} on each device’s clock`)
          : h('time', { datetime: notification.deliverAt, title: formatTime(notification.deliverAt) },
            new Date(notification.deliverAt) > new Date() ? `delivers ${relativeTime(notification.deliverAt)}` : relativeTime(notification.deliverAt)),
        notification.expiresAt ? ` · expires ${formatTime(notification.expiresAt)}` : '',
        notification.template ? ` · from template ${notification.template.name} v${notification.template.version}` : ''),
      body,
      results.element,
      h('div', { class: 'campaign-actions' }, actionError, action),
    ),
  );
  let status = null;
  let lastJSON = '';

  action.addEventListener('click', async () => {
    const canceling = action.dataset.kind === 'cancel';
    const confirmed = await dialog.ask(
      canceling ? `Cancel campaign ${notification.id}?` : `Recall campaign ${notification.id}?`,
      canceling
        ? 'Nothing has been sent yet; it never will be.'
        : 'It leaves every feed, devices are told to remove the alert, and its content can no longer be fetched.',
      canceling ? 'Cancel campaign' : 'Recall campaign');
    if (!confirmed) return;
    action.disabled = true;
    try {
      await app.api.removeNotification(notification.id);
      if (!canceling) notification.deletedAt = new Date().toISOString();
      toast(canceling ? `Campaign ${notification.id} is canceled.` : `Campaign ${notification.id} is recalled.`);
      showError(actionError, null);
      await refresh();
    } catch (failure) {
      showError(actionError, failure);
    } finally {
      action.disabled = false;
    }
  });

  async function update(force = false) {
    const fresh = await app.api.status(notification.id);
    const json = JSON.stringify(fresh);
    if (!force && json === lastJSON) return;
    lastJSON = json;
    status = fresh;
    const state = stateOf(notification, status);
    badge.className = `badge state-${state}`;
    badge.textContent = state;
    badge.setAttribute('data-state', state);
    replace(body,
      status.nextDueAt ? h('p', { class: 'meta next-due' }, 'Next devices due ',
        h('time', { datetime: status.nextDueAt, title: formatTime(status.nextDueAt) }, relativeTime(status.nextDueAt)), '.') : null,
      funnel(status), reachPanel(status), variantFunnel(status, notification.variants), cappedNote(status), statePushNote(status),
      deliveryErrors(status));
    results.refresh();
    const removable = state !== 'canceled' && state !== 'recalled';
    action.hidden = !removable;
    action.dataset.kind = status.sent === 0 && status.failed === 0 && !['delivered', 'expired', 'failed'].includes(state) ? 'cancel' : 'recall';
    action.textContent = action.dataset.kind === 'cancel' ? 'Cancel' : 'Recall';
    action.setAttribute('aria-label', `${action.textContent} campaign ${notification.id}`);
  }
  return { element, update };
}

function thumbnail(notification) {
  if (notification.richType === 'img' && !notification.deletedAt) {
    // The signed payload link works without credentials, which an <img> cannot send.
    const image = h('img', { class: 'campaign-thumb', src: notification.payloadUrl.replace(/^\//, ''), alt: '', loading: 'lazy', width: 72, height: 72 });
    // Past its expiry the payload answers 410: show the kind instead of a broken image.
    image.addEventListener('error', () => image.replaceWith(h('div', { class: 'campaign-thumb kind-img', 'aria-hidden': 'true' }, '🖼')), { once: true });
    return image;
  }
  return h('div', { class: `campaign-thumb kind-${notification.richType}`, 'aria-hidden': 'true' },
    { img: '🖼', url: '🔗', text: '¶' }[notification.richType]);
}
