// How far a campaign reached: of the devices its push went to, how many fetched the content within a minute, ten
// minutes and an hour, how many were reached at all (fetched, or showed the alert) and how soon, as bars drawn in the
// page, and what its fallback alerts brought in.
import { count, formatNumber, h } from './dom.js';

const bars = [
  ['fetchedWithin1m', 'Fetched within 1 min'],
  ['fetchedWithin10m', 'Fetched within 10 min'],
  ['fetchedWithin1h', 'Fetched within 1 hour'],
  ['reached', 'Reached in all'],
  ['notReached', 'Not reached'],
];

/** The reach of `status` (the answer of GET …/status), or null before any push went out. */
export function reachPanel(status) {
  const reach = status.reach;
  if (!reach || !(status.sent > 0)) return null;
  const sent = reach.reached + reach.notReached;
  const base = Math.max(sent, 1);
  const percent = (value) => Math.round((value / base) * 100);
  const speed = reach.fetchSecondsP50 === undefined ? null
    : h('p', { class: 'reach-speed' },
      `Half of the devices that fetched it did within ${fetchTime(reach.fetchSecondsP50)} of their push; nine in ten within ${fetchTime(reach.fetchSecondsP90)}.`);
  const fallbacks = status.fallbacks?.sent > 0
    ? h('p', { class: 'reach-fallbacks', 'data-fallbacks': String(status.fallbacks.sent) },
      `Fallback alerts: ${count(status.fallbacks.sent, 'device that had not fetched it in time was', 'devices that had not fetched it in time were')} alerted; ${formatNumber(status.fallbacks.fetchedAfter)} fetched it after.`)
    : null;
  return h('section', { class: 'reach', 'aria-label': 'Reach' },
    h('p', { class: 'reach-total' }, h('strong', { 'data-reached': String(reach.reached) }, formatNumber(reach.reached)),
      ` of ${count(sent, 'device', 'devices')} reached (${percent(reach.reached)}%).`),
    h('ul', { class: 'reach-bars' }, bars.map(([key, label]) => h('li', { class: `reach-bar reach-${key}`, 'data-reach': key },
      h('span', { class: 'reach-label' }, label),
      h('span', { class: 'reach-track', 'aria-hidden': 'true' }, h('span', { style: `width: ${Math.min(100, percent(reach[key]))}%` })),
      h('span', { class: 'reach-value' }, `${formatNumber(reach[key])} · ${percent(reach[key])}%`)))),
    speed, fallbacks);
}

/** "0.4 s", "12 s", "5 min 40 s", "2 h 5 min": a time to fetch as people read it. */
export function fetchTime(value) {
  if (value < 10) return `${Number(value.toFixed(1))} s`;
  if (value < 60) return `${Math.round(value)} s`;
  const minutes = Math.floor(value / 60);
  if (minutes < 60) return value % 60 >= 1 ? `${minutes} min ${Math.round(value % 60)} s` : `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
