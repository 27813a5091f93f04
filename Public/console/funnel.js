// The delivery funnel of one campaign: targeted → sent → fetched → displayed → opened / dismissed.
import { formatNumber, h } from './dom.js';

const steps = [
  ['targeted', 'Targeted', 'devices addressed'],
  ['sent', 'Sent', 'handed to their hub'],
  ['fetched', 'Fetched', 'people fetched the content'],
  ['displayed', 'Displayed', 'devices showed the alert'],
  ['opened', 'Opened', 'people opened it'],
  ['dismissed', 'Dismissed', 'people dismissed it'],
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
