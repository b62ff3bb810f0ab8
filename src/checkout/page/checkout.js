/* global document, window, fetch */
// The hosted checkout's progressive enhancement. Every page works without this file; it adds
// method tabs, operator detection, card number spacing, double-submit protection and the
// approval poll. Loaded in <head>, so it marks the page first and waits for the DOM for the rest.
document.documentElement.classList.add('js');

document.addEventListener('DOMContentLoaded', () => {
  setUpMethodTabs();
  setUpOperatorDetection();
  setUpCardFormatting();
  setUpBusyButtons();
  pollApprovalStatus();
});

function setUpMethodTabs() {
  const tabs = Array.from(document.querySelectorAll('[role="tab"]'));
  const select = (chosen) => {
    for (const tab of tabs) {
      const selected = tab === chosen;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
      document.getElementById(tab.getAttribute('aria-controls')).classList.toggle('is-open', selected);
    }
  };
  tabs.forEach((tab, index) => {
    tab.addEventListener('click', () => select(tab));
    // The arrow keys move between tabs, as the ARIA tabs pattern expects.
    tab.addEventListener('keydown', (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = tabs[(index + step + tabs.length) % tabs.length];
      select(next);
      next.focus();
    });
  });
}

/** Airtel numbers start 99/98 and TNM numbers 88/89 once the country code or trunk 0 is gone. */
function operatorOf(number) {
  const local = number.replace(/\s+/g, '').replace(/^(\+?265|0)/, '');
  const prefix = local.slice(0, 2);
  if (prefix === '99' || prefix === '98') return 'airtel';
  if (prefix === '88' || prefix === '89') return 'tnm';
  return '';
}

// Only a recognised number changes the network, so a choice the customer made stays until
// they type a number that says otherwise.
function setUpOperatorDetection() {
  const mobile = document.getElementById('mobile');
  const operator = document.getElementById('operator');
  if (!mobile || !operator) return;
  const detect = () => {
    const found = operatorOf(mobile.value);
    if (found) operator.value = found;
  };
  mobile.addEventListener('input', detect);
  if (!operator.value) detect();
}

// Reformats only while the caret is at the end (plain typing or pasting), so editing in the
// middle of a number never makes the caret jump.
function reformatAtEnd(input, format) {
  input.addEventListener('input', () => {
    if (input.selectionStart !== input.value.length) return;
    input.value = format(input.value);
  });
}

function setUpCardFormatting() {
  const number = document.getElementById('card-number');
  const expiry = document.getElementById('card-expiry');
  if (number) reformatAtEnd(number, (value) => value.replace(/\D/g, '').slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 '));
  if (expiry) reformatAtEnd(expiry, (value) => (/^\d{3,4}$/.test(value) ? `${value.slice(0, 2)}/${value.slice(2)}` : value));
}

function setUpBusyButtons() {
  const forms = Array.from(document.querySelectorAll('form'));
  for (const form of forms) {
    form.addEventListener('submit', () => {
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      button.classList.add('is-busy');
    });
  }
  // Coming back with the browser's Back button restores the page as it was left: busy.
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    for (const button of document.querySelectorAll('button.is-busy')) {
      button.disabled = false;
      button.classList.remove('is-busy');
    }
  });
}

const POLL_MS = 1000;

// Asks the status route until the attempt settles, then goes where it says. A network error is
// retried; any other answer reloads the page so the server can show what happened.
function pollApprovalStatus() {
  const waiting = document.querySelector('[data-status-url]');
  if (!waiting) return;
  const url = waiting.getAttribute('data-status-url');
  const check = () => {
    fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then((response) => {
        if (!response.ok) return window.location.reload();
        return response.json().then((status) => {
          if (typeof status.next_url === 'string') window.location.href = status.next_url;
          else window.setTimeout(check, POLL_MS);
        });
      })
      .catch(() => window.setTimeout(check, POLL_MS));
  };
  window.setTimeout(check, POLL_MS);
}
