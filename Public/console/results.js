// A campaign's results, read only when someone opens them: its timeline as a chart and every delivery as a CSV file.
import { errorBox, h, saveFile, showError, toast } from './dom.js';
import { timelineChart, timelineStep } from './timeline-chart.js';

// While open, the results follow the funnel, but not more often than this.
const refreshAtMost = 5000;

/**
 * @param {{id: number, createdAt: string}} notification
 * @param {import('./api.js').Api} api
 */
export function resultsDisclosure(notification, api) {
  const id = notification.id;
  const chart = timelineChart(`campaign-${id}-timeline`);
  const state = h('p', { class: 'meta', 'aria-live': 'polite' });
  const error = errorBox(`campaign-${id}-results-error`);
  const download = h('button', { type: 'button', class: 'button small', id: `campaign-${id}-csv` }, 'Download CSV');
  const element = h('details', { class: 'results', id: `campaign-${id}-results` },
    h('summary', {}, 'Results'),
    h('div', { class: 'results-body' },
      state, chart.element, error,
      h('div', { class: 'results-actions' },
        h('p', { class: 'hint' }, 'Every device’s delivery: its state, variant, language and when it was sent, fetched and displayed.'),
        download)),
  );
  let loading = false;
  let loadedAt = 0;

  async function load() {
    if (loading) return;
    loading = true;
    if (!loadedAt) state.textContent = 'Reading the timeline…';
    try {
      chart.draw(await api.timeline(id, timelineStep(notification.createdAt)));
      state.textContent = '';
      showError(error, null);
    } catch (failure) {
      state.textContent = '';
      showError(error, failure);
    } finally {
      loading = false;
      loadedAt = Date.now();
    }
  }

  element.addEventListener('toggle', () => {
    if (element.open) load();
  });
  download.addEventListener('click', async () => {
    const name = `notification-${id}-deliveries.csv`;
    download.disabled = true;
    download.textContent = 'Preparing…';
    try {
      saveFile(await api.deliveriesCSV(id), name);
      showError(error, null);
      toast(`${name} is downloaded.`);
    } catch (failure) {
      showError(error, failure);
    } finally {
      download.disabled = false;
      download.textContent = 'Download CSV';
    }
  });

  return {
    element,
    /** Reads the timeline again if the results are open and were not just read. */
    refresh() {
      if (element.open && Date.now() - loadedAt >= refreshAtMost) load();
    },
  };
}
