// The delivery funnel of one campaign: targeted → sent → fetched → displayed → opened / dismissed, for the whole
// campaign and, in an A/B test, for each variant.
import { count, formatNumber, h } from './dom.js';
import { fetchTime } from './reach.js';

const steps = [
  ['targeted', 'Targeted', 'devices addressed'],
  ['sent', 'Sent', 'handed to their hub'],
  ['fetched', 'Fetched', 'people fetched the content'],
  ['displayed', 'Displayed', 'devices showed the alert'],
  ['opened', 'Opened', 'people opened it'],
  ['dismissed', 'Dismissed', 'people dismissed it'],
];

// Each variant's reach beside its funnel: how many fetched within a minute, were reached at all, and how soon.
const reachColumns = [
  ['fetchedWithin1m', 'Within 1 min', (reach) => formatNumber(reach.fetchedWithin1m ?? 0)],
  ['reached', 'Reached', (reach) => formatNumber(reach.reached ?? 0)],
  ['fetchSecondsP50', 'Median fetch', (reach) => (reach.fetchSecondsP50 === undefined ? '–' : fetchTime(reach.fetchSecondsP50))],
];

export function funnel(status) {
  const base = Math.max(status.targeted, 1);
  return h('ol', { class: 'funnel', 'aria-label': 'Delivery funnel' },
    steps.map(([key, label, detail]) => {
      const value = status[key];
      const share = Math.min(100, Math.round((value / base) * 100));
      return h('li', { class: `step step-${key}`, title: `${formatNumber(value)} ${detail}` },
        h('span', { class: 'step-label' }, label),
        h('span', { class: 'step-value', 'data-step': key }, formatNumber(value)),
        h('span', { class: 'step-bar', 'aria-hidden': 'true' }, h('span', { style: `width: ${share}%` })),
      );
    }),
  );
}

export function deliveryErrors(status) {
  if (!status.errors.length) return null;
  return h('details', { class: 'delivery-errors' },
    h('summary', {}, `${status.errors.length} delivery ${status.errors.length === 1 ? 'error' : 'errors'}`),
    h('ul', {}, status.errors.map((failure) => h('li', {},
      h('strong', {}, failure.installationId), ` (${failure.platform}) `, h('code', {}, failure.code), ': ', failure.message))),
  );
}

/**
 * A row per variant of an A/B test, with the same steps as the funnel.
 * @param {object} status the answer of GET …/status, whose `variants` an A/B test has
 * @param {{name: string, weight: number, message: string}[]} variants the campaign's variants, for their weights and messages
 */
export function variantFunnel(status, variants = []) {
  if (!status.variants?.length) return null;
  return h('div', { class: 'table-wrap variant-funnel' },
    h('table', {},
      h('caption', {}, `A/B test: ${count(status.variants.length, 'variant', 'variants')}`),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'Variant'),
        steps.map(([, label]) => h('th', { scope: 'col' }, label)),
        reachColumns.map(([, label]) => h('th', { scope: 'col' }, label)))),
      h('tbody', {}, status.variants.map((variant) => {
        const details = variants.find((other) => other.name === variant.name);
        return h('tr', { class: 'variant-row', 'data-variant': variant.name },
          h('th', { scope: 'row' }, variant.name, details ? h('small', {}, ` ${details.weight}%`) : null,
            details ? h('span', { class: 'variant-message', title: details.message }, details.message) : null),
          steps.map(([key, label]) => h('td', { 'data-step': key, 'data-label': label }, formatNumber(variant[key] ?? 0))),
          reachColumns.map(([key, label, show]) => h('td', { 'data-step': key, 'data-label': label }, show(variant.reach ?? {}))));
      })),
    ),
  );
}

/** Deliveries the frequency cap held back, when there are any. */
export function cappedNote(status) {
  if (!(status.capped > 0)) return null;
  return h('p', { class: 'capped-note' },
    `Capped: ${count(status.capped, 'delivery was', 'deliveries were')} not sent, as their people had reached the frequency cap.`);
}

/** The state and recall pushes to people's other devices: shown apart, since they are not part of the funnel. */
export function statePushNote(status) {
  const pushes = status.statePushes;
  if (!pushes || pushes.pending + pushes.sent + pushes.failed === 0) return null;
  const parts = [`${pushes.sent} sent`];
  if (pushes.pending > 0) parts.push(`${pushes.pending} waiting`);
  if (pushes.failed > 0) parts.push(`${pushes.failed} failed`);
  return h('p', { class: 'state-push-note', 'data-state-pushes': String(pushes.sent) },
    `State pushes to other devices (read, dismissed, recalled): ${parts.join(', ')}. Not part of the funnel above.`);
}
