// The templates screen: the campaigns a team sends again and again, each at its latest version, to create, change,
// delete, or use: "Use" opens compose with the template's content and a field for each of its placeholders.
import { confirmDialog } from './dialog.js';
import { errorBox, formatTime, h, relativeTime, replace, showError, toast } from './dom.js';
import { placeholderParts } from './placeholders.js';
import { templateEditor } from './template-editor.js';

export function renderTemplates(main, app) {
  const error = errorBox('templates-error');
  const list = h('ul', { class: 'templates', id: 'template-list', 'aria-busy': 'true' });
  const slot = h('div', { class: 'editor-slot' });
  const create = h('button', { type: 'button', class: 'button primary', id: 'new-template' }, 'New template');
  const empty = h('div', { class: 'panel empty', hidden: true },
    h('p', {}, 'No templates yet. A template keeps a campaign’s content, with placeholders such as {{percent}} filled in each time.'));
  const dialog = confirmDialog();
  let editor = null;
  let opener = null;
  let gone = false;

  async function load(fresh) {
    try {
      const templates = [];
      let after = null;
      do {
        const page = await app.api.templates(after);
        if (gone) return;
        templates.push(...page.items);
        after = page.next;
      } while (after);
      templates.sort((a, b) => a.name.localeCompare(b.name));
      replace(list, templates.map((template) => card(template, template.name === fresh)));
      empty.hidden = templates.length > 0;
      list.setAttribute('aria-busy', 'false');
      showError(error, null);
    } catch (failure) {
      showError(error, failure);
    }
  }

  function openEditor(template, button) {
    closeEditor(false);
    opener = button;
    editor = templateEditor(app.api, template, {
      saved: (saved) => {
        toast(template ? `Template ${saved.name} is now version ${saved.version}.` : `Template ${saved.name} is saved.`);
        closeEditor(false);
        load(saved.name).then(() => list.querySelector(`#template-${saved.name} .use`)?.focus());
      },
      canceled: () => closeEditor(true),
    });
    slot.append(editor.element);
    create.hidden = true;
    editor.element.scrollIntoView({ block: 'nearest' });
    editor.focus();
  }

  function closeEditor(returnFocus) {
    editor?.element.remove();
    editor = null;
    create.hidden = false;
    if (returnFocus) (opener?.isConnected ? opener : create).focus();
  }

  function card(template, fresh) {
    const edit = h('button', { type: 'button', class: 'button small quiet', 'aria-label': `Change template ${template.name}` }, 'Change');
    const remove = h('button', { type: 'button', class: 'button small quiet danger', 'aria-label': `Delete template ${template.name}` }, 'Delete');
    edit.addEventListener('click', () => openEditor(template, edit));
    remove.addEventListener('click', async () => {
      const confirmed = await dialog.ask(`Delete template ${template.name}?`,
        'Campaigns made from it keep their content; no new campaign can start from it.', 'Delete template');
      if (!confirmed) return;
      remove.disabled = true;
      try {
        await app.api.removeTemplate(template.name);
        toast(`Template ${template.name} is deleted.`);
        await load();
        create.focus();
      } catch (failure) {
        showError(error, failure);
        remove.disabled = false;
      }
    });
    const titleId = `template-${template.name}-title`;
    return h('li', { class: `template panel${fresh ? ' fresh' : ''}`, id: `template-${template.name}`, 'aria-labelledby': titleId },
      h('div', { class: 'template-head' },
        h('h2', { id: titleId }, template.name),
        h('span', { class: 'badge version', title: `Version ${template.version}` }, `v${template.version}`)),
      template.description ? h('p', { class: 'template-description' }, template.description) : null,
      h('div', { class: 'template-message' },
        template.title ? h('p', { class: 'template-title' }, marked(template.title)) : null,
        h('p', {}, template.message ? marked(template.message) : h('span', { class: 'muted' }, 'No message: campaigns write their own.'))),
      h('p', { class: 'meta' },
        { img: 'Image', url: 'Link', text: 'Text' }[template.richType] ?? 'Any content',
        template.audience ? [' · to ', h('code', {}, template.audience)] : '',
        template.expiresIn ? ` · expires after ${template.expiresIn}` : '',
        ` · by ${template.createdBy} `,
        h('time', { datetime: template.createdAt, title: formatTime(template.createdAt) }, relativeTime(template.createdAt))),
      h('div', { class: 'template-actions' },
        h('a', { class: 'button small primary use', href: `#/compose/template/${encodeURIComponent(template.name)}`, 'aria-label': `Use template ${template.name}` }, 'Use'),
        edit, remove),
    );
  }

  create.addEventListener('click', () => openEditor(null, create));
  main.replaceChildren(
    h('div', { class: 'page-head row' },
      h('div', {},
        h('h1', { id: 'templates-title', tabindex: -1 }, 'Templates'),
        h('p', { class: 'lede' }, 'Campaigns you send again and again. Use one to start a campaign with its placeholders filled in.')),
      create,
    ),
    error, slot, empty, list, dialog.element,
  );
  load();
  return () => { gone = true; };
}

/** `text` with its placeholders set apart, so the parts each campaign fills in stand out. */
function marked(text) {
  return placeholderParts(text).map((part) => (part.placeholder ? h('mark', { class: 'placeholder' }, part.text) : part.text));
}
