/* global document, window */
// The dashboard's progressive enhancement: every page works without this file. It shows the Copy
// buttons put after keys and ids (copyButton in layout.ts) where the clipboard can be written, and
// says in the page's announcer (#copied, aria-live) what was copied. Loaded with `defer`: the page
// is parsed when it runs.
/** How long a button reads "Copied" before it offers to copy again. */
const COPIED_MS = 2000;
/** Each button's timer putting its own words ("Copy", "Copy the codes") back. */
const restoring = new WeakMap();

const announcer = document.getElementById('copied');
if (window.navigator.clipboard && announcer) {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', () => copy(button, announcer));
  }
}

function copy(button, announcer) {
  const label = button.dataset.label ?? (button.dataset.label = button.textContent);
  const what = button.getAttribute('aria-label').replace(/^Copy /, '');
  const say = (text) => {
    // Emptied first, so that copying the same value twice is announced twice.
    announcer.textContent = '';
    window.setTimeout(() => {
      announcer.textContent = text;
    }, 50);
  };
  window.navigator.clipboard.writeText(button.getAttribute('data-copy')).then(
    () => {
      say(`Copied ${what}.`);
      button.textContent = 'Copied';
      window.clearTimeout(restoring.get(button));
      restoring.set(
        button,
        window.setTimeout(() => {
          button.textContent = label;
        }, COPIED_MS),
      );
    },
    () => say(`Could not copy ${what}: select it and copy it yourself.`),
  );
}
