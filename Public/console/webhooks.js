// The webhooks screen, for admins: where the gateway posts delivery and engagement events, whether each receiver
// takes them, and what its latest attempts got; a webhook the gateway disabled is enabled again here.
import { count, errorBox, formatTime, h, replace, showError, toast } from './dom.js';

/** Attempts shown per webhook: enough to see a retry schedule or a receiver's recent mood. */
const attemptsShown = 10;

export function renderWebhooks(main, app) {
  const error = errorBox('webhooks-error');
  const summary = h('p', { class: 'meta', id: 'webhook-summary', 'aria-live': 'polite' }, 'Reading the webhooks…');
  const list = h('div', { class: 'webhooks', id: 'webhook-list' });
  let gone = false;

  async function load() {
    try {
      const page = await app.api.webhooks();
      const attempts = await Promise.all(page.items.map((webhook) => app.api.webhookAttempts(webhook.id, attemptsShown)));
      if (gone) return;
      replace(list, page.items.map((webhook, index) => card(webhook, attempts[index].items)));
      summary.textContent = page.items.length
        ? `${count(page.items.length, 'webhook', 'webhooks')}, oldest first.`
        : 'No webhooks yet. An admin creates them with POST /api/webhooks.';
      showError(error, null);
    } catch (failure) {
      showError(error, failure);
    }
  }

  function card(webhook, attempts) {
    const state = webhook.enabled
      ? h('span', { class: `badge ${webhook.failingSince ? 'state-partial' : 'state-delivered'}` }, webhook.failingSince ? 'Failing' : 'Enabled')
      : h('span', { class: 'badge state-failed' }, 'Disabled');
    const toggle = h('button', { type: 'button', class: 'button quiet small', id: `webhook-${webhook.id}-toggle` },
      webhook.enabled ? 'Disable' : 'Enable again');
    toggle.addEventListener('click', async () => {
      toggle.disabled = true;
      try {
        await app.api.setWebhookEnabled(webhook.id, !webhook.enabled);
        toast(webhook.enabled ? `The webhook to ${webhook.url} is disabled.` : `The webhook to ${webhook.url} is enabled again.`);
        await load();
        document.getElementById(`webhook-${webhook.id}-toggle`)?.focus();
      } catch (failure) {
        showError(error, failure);
        toggle.disabled = false;
      }
    });
    const notes = [];
    if (!webhook.enabled) notes.push(h('p', { class: 'webhook-reason', id: `webhook-${webhook.id}-reason` }, webhook.disabledReason ?? 'Disabled.'));
    if (webhook.enabled && webhook.failingSince) {
      notes.push(h('p', { class: 'webhook-reason' }, `Every attempt since ${formatTime(webhook.failingSince)} has failed; it is retried.`));
    }
    const rows = attempts.map((attempt) => h('tr', { 'data-attempt': attempt.id },
      h('th', { scope: 'row', 'data-label': 'Time' }, h('time', { datetime: attempt.attemptedAt }, formatTime(attempt.attemptedAt))),
      h('td', { 'data-label': 'Result' }, attempt.status !== undefined ? `HTTP ${attempt.status}` : (attempt.error ?? 'no answer')),
      h('td', { 'data-label': 'Events' }, String(attempt.events)),
      h('td', { 'data-label': 'Duration' }, `${attempt.durationMs} ms`),
      h('td', { 'data-label': 'Message' }, h('span', { class: 'mono' }, attempt.messageId)),
    ));
    const table = rows.length
      ? h('div', { class: 'table-wrap' },
        h('table', { class: 'records webhook-attempts', id: `webhook-${webhook.id}-attempts` },
          h('caption', { class: 'visually-hidden' }, `Latest attempts to ${webhook.url}, newest first`),
          h('thead', {}, h('tr', {}, ['Time', 'Result', 'Events', 'Duration', 'Message'].map((label) => h('th', { scope: 'col' }, label)))),
          h('tbody', {}, rows)))
      : h('p', { class: 'meta' }, 'Nothing sent yet: no event it listens to has happened.');
    return h('section', { class: 'panel webhook', id: `webhook-${webhook.id}`, 'aria-labelledby': `webhook-${webhook.id}-url` },
      h('div', { class: 'webhook-head' },
        h('h2', { id: `webhook-${webhook.id}-url`, class: 'mono' }, webhook.url), state, toggle),
      h('p', { class: 'chips' }, webhook.events.map((event) => h('code', { class: 'chip' }, event))),
      ...notes,
      table);
  }

  main.replaceChildren(
    h('div', { class: 'page-head' },
      h('h1', { id: 'webhooks-title', tabindex: -1 }, 'Webhooks'),
      h('p', { class: 'lede' }, 'Where the gateway posts what happens to deliveries and campaigns, signed as Standard Webhooks, '
        + 'with the latest attempts of each. Times are in your time zone.')),
    summary, error, list);
  load();
  return () => { gone = true; };
}
