// The Lore console's behaviour beyond htmx: live inbox updates, keyboard shortcuts, uploads with
// progress and drag and drop, and announcements for screen readers. No framework, no build.
(() => {
  const announce = (text) => {
    const el = document.getElementById('announce');
    if (el) el.textContent = text;
  };
  const flash = (text, kind) => {
    const main = document.getElementById('main');
    if (!main) return;
    let p = document.getElementById('live-flash');
    if (!p) {
      p = document.createElement('p');
      p.id = 'live-flash';
      main.insertBefore(p, main.children[1] || null);
    }
    p.className = `flash ${kind}`;
    p.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    p.textContent = text;
  };
  document.addEventListener('lore:announce', (e) => {
    announce(e.detail.value);
    flash(e.detail.value, 'notice');
  });
  document.addEventListener('lore:error', (e) => flash(e.detail.value, 'error'));

  // Live inbox: the server says when the inbox changed; the list is then re-read as HTML.
  const inbox = document.querySelector('[data-live]');
  if (inbox && window.EventSource) {
    const status = document.getElementById('live-status');
    const source = new EventSource(inbox.dataset.live);
    source.addEventListener('ready', () => {
      if (status) status.textContent = 'Live: new questions appear here as they arrive.';
      inbox.dataset.connected = 'true';
    });
    // A card the owner is working on (a form open, a field focused) is never swapped away under
    // them: the refresh waits until they are done, then runs once.
    let pending = null;
    const busy = () => !!inbox.querySelector('details[open], textarea:focus, input:focus');
    const refresh = () => {
      if (pending === null) return;
      if (busy()) return;
      const waiting = pending;
      pending = null;
      htmx.ajax('GET', inbox.dataset.refresh, { target: '#inbox-list', swap: 'outerHTML' }).then(() => {
        announce(`Inbox updated: ${waiting} waiting.`);
      });
    };
    source.addEventListener('inbox', (e) => {
      pending = JSON.parse(e.data).waiting;
      refresh();
    });
    inbox.addEventListener('toggle', refresh, true);
    document.body.addEventListener('htmx:afterSettle', () => setTimeout(refresh, 1500));
    source.addEventListener('error', () => {
      if (status) status.textContent = 'Live updates paused; reconnecting…';
    });
  }

  // Shortcuts for the common path: j/k move between cards, a approves, e edits, r rejects.
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement)
      return;
    const cards = [...document.querySelectorAll('[data-query]')];
    if (!cards.length) return;
    const current = document.activeElement ? document.activeElement.closest('[data-query]') : null;
    const i = current ? cards.indexOf(current) : -1;
    if (e.key === 'j' || e.key === 'k') {
      const next = cards[Math.min(cards.length - 1, Math.max(0, i + (e.key === 'j' ? 1 : -1)))];
      next.focus();
      e.preventDefault();
      return;
    }
    if (!current) return;
    if (e.key === 'a') {
      const b = current.querySelector('button[data-key="a"]');
      if (b) {
        b.click();
        e.preventDefault();
      }
    } else if (e.key === 'e' || e.key === 'r') {
      const d = current.querySelector(`details[data-key="${e.key}"]`);
      if (d) {
        d.open = true;
        const field = d.querySelector('textarea, input:not([type=hidden])');
        if (field) field.focus();
        e.preventDefault();
      }
    }
  });

  // Uploads: progress while the file travels, drag and drop onto the form.
  for (const form of document.querySelectorAll('form[data-upload]')) {
    const input = form.querySelector('input[type=file]');
    const bar = form.querySelector('progress');
    form.addEventListener('dragover', (e) => {
      e.preventDefault();
      form.classList.add('over');
    });
    form.addEventListener('dragleave', () => form.classList.remove('over'));
    form.addEventListener('drop', (e) => {
      e.preventDefault();
      form.classList.remove('over');
      if (e.dataTransfer?.files.length) {
        input.files = e.dataTransfer.files;
        form.requestSubmit();
      }
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const xhr = new XMLHttpRequest();
      xhr.open('POST', form.action);
      xhr.setRequestHeader('HX-Request', 'true');
      const csrf = form.querySelector('input[name=_csrf]');
      if (csrf) xhr.setRequestHeader('X-CSRF-Token', csrf.value);
      bar.hidden = false;
      bar.value = 0;
      xhr.upload.addEventListener('progress', (p) => {
        if (p.lengthComputable) bar.value = Math.round((p.loaded / p.total) * 100);
      });
      xhr.addEventListener('load', () => {
        bar.hidden = true;
        if (xhr.status === 200) {
          const sources = document.getElementById('sources');
          if (sources) {
            sources.outerHTML = xhr.responseText;
            htmx.process(document.getElementById('sources'));
          }
          const trigger = JSON.parse(xhr.getResponseHeader('HX-Trigger') || '{}');
          const msg = trigger['lore:announce'] || 'Uploaded.';
          announce(msg);
          flash(msg, 'notice');
          form.reset();
        } else {
          flash(xhr.responseText || 'Upload failed.', 'error');
        }
      });
      xhr.addEventListener('error', () => {
        bar.hidden = true;
        flash('Upload failed: the server could not be reached.', 'error');
      });
      xhr.send(new FormData(form));
    });
  }
})();
