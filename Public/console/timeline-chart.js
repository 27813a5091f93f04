// A campaign's timeline as a chart drawn in the page: one stepped line each for how many pushes had been sent,
// fetched, displayed and opened, and how many fallback alerts had gone, by the end of each bucket since it was
// created, with a sentence saying the same for screen readers.
import { formatNumber, h, replace } from './dom.js';

// The colours are the stylesheet's (--chart-sent …), so the chart follows the light and dark themes. Each line is
// thinner than the one before and drawn over it: where two steps have the same count, both stay visible.
const series = [
  ['sent', 'Sent', 6],
  ['fetched', 'Fetched', 4.5],
  ['displayed', 'Displayed', 3],
  ['opened', 'Opened', 1.5],
  ['fallbacks', 'Fallback alerts', 1.5],
];
const height = 200;

/** The step of GET …/timeline for a campaign created at `createdAt`: at most 120 buckets, far below the gateway's
 * 10,000, and enough of them that a young campaign's first seconds show (a second each for the first two minutes, a
 * minute each for the first two hours, a day each for the first four months). */
export function timelineStep(createdAt, now = Date.now()) {
  const age = Math.max(0, (now - new Date(createdAt).getTime()) / 1000);
  const steps = [1, 5, 15, 60, 300, 900, 3600, 6 * 3600, 86400, 7 * 86400];
  return steps.find((step) => age / step <= 120) ?? steps[steps.length - 1];
}

export function timelineChart(id) {
  const canvas = h('canvas', { class: 'timeline-canvas', height, 'aria-hidden': 'true' });
  const summary = h('figcaption', { class: 'visually-hidden', id: `${id}-summary` });
  const legend = h('ul', { class: 'chart-legend', 'aria-hidden': 'true' });
  // The caption, hidden from sight, is what a screen reader reads for the figure: the legend says the same in short.
  const element = h('figure', { class: 'timeline', id }, canvas, legend, summary);
  let timeline = null;
  let drawnWidth = 0;

  // Drawn again when its width changes: the chart is laid out only once its disclosure opens, and phones turn.
  new ResizeObserver(() => {
    if (timeline && canvas.clientWidth !== drawnWidth) paint();
  }).observe(canvas);

  function paint() {
    const width = canvas.clientWidth;
    drawnWidth = width;
    if (!width) return;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const context = canvas.getContext('2d');
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    const style = getComputedStyle(canvas);
    const color = (name) => style.getPropertyValue(name).trim() || '#888';
    const font = `12px ${style.fontFamily}`;
    context.font = font;

    const { buckets, step } = timeline;
    const start = buckets.length ? new Date(buckets[0].at).getTime() : Date.now();
    const end = start + Math.max(1, buckets.length) * step * 1000;
    const totals = cumulative(buckets);
    const top = niceCeiling(Math.max(1, ...series.map(([key]) => totals[key].at(-1) ?? 0)));
    const ticks = top <= 4 ? top : 4;
    const left = Math.ceil(context.measureText(formatNumber(top)).width) + 12;
    const plot = { left, top: 8, right: width - 10, bottom: height - 26 };
    const x = (time) => plot.left + ((time - start) / (end - start)) * (plot.right - plot.left);
    const y = (value) => plot.bottom - (value / top) * (plot.bottom - plot.top);

    // The grid and the counts on the left.
    context.lineWidth = 1;
    context.textBaseline = 'middle';
    context.textAlign = 'right';
    for (let tick = 0; tick <= ticks; tick += 1) {
      const value = (top / ticks) * tick;
      const row = Math.round(y(value)) + 0.5;
      context.strokeStyle = color('--line');
      context.beginPath();
      context.moveTo(plot.left, row);
      context.lineTo(plot.right, row);
      context.stroke();
      context.fillStyle = color('--ink-soft');
      context.fillText(formatNumber(value), plot.left - 6, row);
    }
    // The times at the start, middle and end below; the middle one only where it fits and says something new.
    context.textBaseline = 'top';
    const format = timeFormat(end - start);
    const labels = [[start, 'left', plot.left], [(start + end) / 2, 'center', (plot.left + plot.right) / 2], [end, 'right', plot.right]]
      .map(([time, align, at]) => ({ text: format.format(new Date(time)), align, at }));
    for (const label of labels) {
      const crowded = plot.right - plot.left < 260 || label.text === labels[0].text || label.text === labels[2].text;
      if (label.align === 'center' && crowded) continue;
      context.textAlign = label.align;
      context.fillText(label.text, label.at, plot.bottom + 8);
    }
    // A stepped line per step of the funnel: what each bucket added is drawn at its start, then held to its end.
    context.lineJoin = 'round';
    for (const [key, , lineWidth] of series) {
      context.lineWidth = lineWidth;
      context.strokeStyle = color(`--chart-${key}`);
      context.beginPath();
      context.moveTo(x(start), y(0));
      totals[key].forEach((value, index) => {
        context.lineTo(x(start + index * step * 1000), y(value));
        context.lineTo(x(start + (index + 1) * step * 1000), y(value));
      });
      context.stroke();
    }
  }

  return {
    element,
    /** Shows the answer of GET …/timeline. */
    draw(answer) {
      timeline = answer;
      const totals = cumulative(answer.buckets);
      const last = (key) => totals[key].at(-1) ?? 0;
      replace(legend, series.map(([key, label]) => h('li', {},
        h('span', { class: `swatch swatch-${key}` }), `${label} `, h('strong', {}, formatNumber(last(key))))));
      summary.textContent = describe(answer, totals);
      paint();
    },
  };
}

/** The running totals of each series, bucket by bucket. */
function cumulative(buckets) {
  const totals = {};
  for (const [key] of series) {
    let sum = 0;
    totals[key] = buckets.map((bucket) => (sum += bucket[key] ?? 0));
  }
  return totals;
}

/** 1, 2, 5, 10, 20, 50 …: the smallest such number at least `value`, so the grid's labels are round. */
function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= value);
}

function timeFormat(span) {
  if (span <= 600_000) return new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
  return span <= 86400_000
    ? new Intl.DateTimeFormat(undefined, { timeStyle: 'short' })
    : new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: span <= 14 * 86400_000 ? 'numeric' : undefined });
}

/** The chart in words: the period, the totals and the busiest bucket for sending. */
function describe({ buckets, step }, totals) {
  if (!buckets.length) return 'Nothing has happened yet.';
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const start = new Date(buckets[0].at);
  const end = new Date(start.getTime() + buckets.length * step * 1000);
  const figures = series.map(([key, label]) => `${formatNumber(totals[key].at(-1))} ${label.toLowerCase()}`).join(', ');
  const busiest = buckets.reduce((best, bucket) => ((bucket.sent ?? 0) > (best.sent ?? 0) ? bucket : best), buckets[0]);
  const peak = busiest.sent > 0 ? ` Most were sent in the ${stepName(step)} from ${format.format(new Date(busiest.at))}: ${formatNumber(busiest.sent)}.` : '';
  return `From ${format.format(start)} to ${format.format(end)}: ${figures}.${peak}`;
}

/** "second", "15 seconds", "minute", "6 hours": a bucket's length in words. */
function stepName(step) {
  const [size, unit] = [[604800, 'week'], [86400, 'day'], [3600, 'hour'], [60, 'minute'], [1, 'second']].find(([length]) => step % length === 0);
  return step === size ? unit : `${step / size} ${unit}s`;
}
