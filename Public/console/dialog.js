// A modal question with two answers, on the native <dialog>: focus is trapped and Escape answers no.
import { h } from './dom.js';

export function confirmDialog() {
  const title = h('h2', { id: 'confirm-title' });
  const text = h('p', { id: 'confirm-text' });
  const yes = h('button', { type: 'submit', class: 'button primary danger', value: 'yes', id: 'confirm-yes' });
  const no = h('button', { type: 'submit', class: 'button quiet', value: 'no', id: 'confirm-no' });
  const element = h('dialog', { class: 'dialog', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-text' },
    h('form', { method: 'dialog' }, title, text, h('div', { class: 'dialog-actions' }, no, yes)));
  return {
    element,
    ask(question, detail, confirmLabel, keepLabel = 'Keep it') {
      title.textContent = question;
      text.textContent = detail;
      yes.textContent = confirmLabel;
      no.textContent = keepLabel;
      element.returnValue = '';
      element.showModal();
      no.focus();
      return new Promise((resolve) => {
        element.addEventListener('close', () => resolve(element.returnValue === 'yes'), { once: true });
      });
    },
  };
}
