// An A/B test: two to five variants of the alert, each with its share of the audience. The gateway assigns each person
// one variant (the same on all their devices) and counts each variant's funnel apart.
import { h, replace } from './dom.js';

const fewest = 2;
const most = 5;
const letters = ['A', 'B', 'C', 'D', 'E'];

/** Shares of 100 as even as whole numbers allow, the first variants taking the remainder: 34, 33, 33. */
function evenWeights(count) {
  return Array.from({ length: count }, (_, index) => Math.floor(100 / count) + (index < 100 % count ? 1 : 0));
}

/**
 * The A/B test switch and, when it is on, a group of fields per variant and the running total of the weights.
 * @param {object} draft the compose screen's draft: `abTest` (on or off) and `variants` (`{name, weight, message,
 *   title}` each, the weight as typed) live in it.
 * @param {() => void} refresh called after every change.
 */
export function variantsField(draft, refresh) {
  draft.abTest = false;
  draft.variants = letters.slice(0, fewest).map((name, index) => ({ name, weight: String(evenWeights(fewest)[index]), message: '', title: '' }));
  const list = h('div', { class: 'variants', id: 'variants' });
  const total = h('p', { class: 'variant-total', id: 'variant-total', 'aria-live': 'polite' });
  const add = h('button', { type: 'button', class: 'button small', id: 'add-variant', onclick: () => {
    draft.variants.push({ name: letters.find((letter) => !draft.variants.some((variant) => variant.name === letter)) ?? '', message: '', title: '' });
    rebalance();
    draw();
    list.querySelector(`#variant-${draft.variants.length}-name`).focus();
  } }, 'Add a variant');
  const body = h('div', { class: 'ab-body', id: 'ab-body', hidden: true },
    h('p', { class: 'hint' }, 'Each person gets one variant, the same on all their devices; a weight is the share of people who get it. ',
      'A variant without its own message or title uses the campaign’s.'),
    list, h('div', { class: 'variant-foot' }, total, add));
  const toggle = h('input', { type: 'checkbox', id: 'ab-test', 'aria-controls': 'ab-body', onchange: () => {
    draft.abTest = toggle.checked;
    body.hidden = !toggle.checked;
    refresh();
  } });

  // Adding or removing a variant shares the audience evenly again; the weights can then be changed one by one.
  function rebalance() {
    evenWeights(draft.variants.length).forEach((weight, index) => { draft.variants[index].weight = String(weight); });
  }

  function showTotal() {
    const sum = draft.variants.reduce((all, variant) => all + (Number(variant.weight) || 0), 0);
    total.className = `variant-total ${sum === 100 ? 'ok' : 'off'}`;
    total.textContent = sum === 100 ? 'The weights add up to 100%.' : `The weights add up to ${sum}%; they must add up to 100%.`;
  }

  function draw() {
    replace(list, draft.variants.map((variant, index) => {
      const number = index + 1;
      const id = (field) => `variant-${number}-${field}`;
      const input = (field, attributes) => {
        const element = h(field === 'message' ? 'textarea' : 'input', { id: id(field), ...attributes, oninput: () => {
          variant[field] = element.value;
          if (field === 'weight') showTotal();
          if (field === 'name') legend.textContent = `Variant ${element.value.trim() || number}`;
          refresh();
        } });
        element.value = variant[field];
        return element;
      };
      const legend = h('legend', {}, `Variant ${variant.name || number}`);
      return h('fieldset', { class: 'variant' },
        legend,
        h('div', { class: 'variant-head' },
          h('div', { class: 'field' }, h('label', { for: id('name') }, 'Name'), input('name', { maxlength: 32, autocomplete: 'off' })),
          h('div', { class: 'field weight' }, h('label', { for: id('weight') }, 'Weight (%)'),
            input('weight', { type: 'number', min: 0, max: 100, step: 1, inputmode: 'numeric' })),
        ),
        h('div', { class: 'field' }, h('label', { for: id('message') }, 'Message'),
          input('message', { rows: 2, maxlength: 1000, placeholder: 'Empty: the campaign’s message' })),
        h('div', { class: 'field' }, h('label', { for: id('title') }, 'Title'),
          input('title', { maxlength: 200, placeholder: 'Empty: the campaign’s title' })),
        draft.variants.length > fewest
          ? h('button', { type: 'button', class: 'button small quiet', 'aria-label': `Remove variant ${variant.name || number}`, onclick: () => {
            draft.variants.splice(index, 1);
            rebalance();
            draw();
            add.focus();
          } }, 'Remove')
          : null,
      );
    }));
    add.hidden = draft.variants.length >= most;
    showTotal();
    refresh();
  }
  draw();

  return h('div', { class: 'ab-test' },
    h('label', { class: 'switch' }, toggle, h('span', {}, 'Send different variants to parts of the audience')),
    body);
}

/** The `variants` of POST /api/notifications from the draft, or an Error naming what is wrong. The gateway decides
 * whether the weights add up to 100, so the console and the API can never disagree about it. */
export function buildVariants(draft, notification) {
  if (!draft.abTest) return;
  notification.variants = draft.variants.map((variant, index) => {
    const name = variant.name.trim();
    if (!name) throw new Error(`Name variant ${index + 1}.`);
    const weight = Number(variant.weight);
    if (variant.weight === '' || !Number.isInteger(weight)) throw new Error(`The weight of variant ${name} is a whole number from 0 to 100.`);
    const built = { name, weight };
    if (variant.message.trim()) built.message = variant.message.trim();
    if (variant.title.trim()) built.title = variant.title.trim();
    return built;
  });
}
