/* global document, window, fetch */
// The hosted checkout's progressive enhancement. Every page works without this file; it adds
// method tabs, operator detection, card number spacing, double-submit protection, the approval
// poll and its timer, a bank transfer's copy buttons and time left, the typed number kept in this tab, cancelling in place, the countdown back
// to the shop and the logo's stand-in. Loaded in <head>, so it marks the page first and waits for
// the DOM for the rest.
document.documentElement.classList.add('js');

// A logo that fails to load is replaced by the merchant's initial. Listening from <head>, in the
// capture phase (an image's error does not bubble), catches a failure however early it comes.
document.addEventListener(
  'error',
  (event) => {
    if (event.target instanceof window.HTMLImageElement && event.target.id === 'merchant-logo') showMonogram();
  },
  true,
);

document.addEventListener('DOMContentLoaded', () => {
  checkLogo();
  restoreTypedNumber();
  setUpMethodTabs();
  setUpOperatorDetection();
  setUpCardFormatting();
  rememberTypedNumber();
  setUpBusyButtons();
  showFullNumber();
  countWaitedTime();
  countTimeLeft();
  setUpCopyButtons();
  setUpCancelInPlace();
  countDownToShop();
  forgetTypedNumberOnceEnded();
  pollApprovalStatus();
});

function showMonogram() {
  const logo = document.getElementById('merchant-logo');
  const monogram = document.getElementById('merchant-monogram');
  if (!logo || !monogram) return;
  logo.remove();
  monogram.hidden = false;
}

function checkLogo() {
  const logo = document.getElementById('merchant-logo');
  if (logo && logo.complete && logo.naturalWidth === 0) showMonogram();
}

// The number the customer typed stays in this tab only (sessionStorage), never on the server,
// which keeps only a masked one: it refills the form after a failed attempt and shows on the
// waiting page in full, so that a mistyped number can be seen.
const sessionId = window.location.pathname.split('/')[2] || '';
const numberKey = `lipira.mobile.${sessionId}`;

function storedNumber() {
  try {
    return window.sessionStorage.getItem(numberKey) || '';
  } catch {
    return '';
  }
}

function storeNumber(value) {
  try {
    if (value) window.sessionStorage.setItem(numberKey, value);
    else window.sessionStorage.removeItem(numberKey);
  } catch {
    // Storage can be switched off; the page then shows the masked number, as without JavaScript.
  }
}

function rememberTypedNumber() {
  const form = document.getElementById('mobile-form');
  const mobile = document.getElementById('mobile');
  if (form && mobile) form.addEventListener('submit', () => storeNumber(mobile.value.trim()));
}

function restoreTypedNumber() {
  const mobile = document.getElementById('mobile');
  if (mobile && !mobile.value) mobile.value = storedNumber();
}

function forgetTypedNumberOnceEnded() {
  if (document.getElementById('receipt') || document.getElementById('ended')) storeNumber('');
}

/** `0990000000` from any way a Malawian number is written, or '' when it is not one. */
function localNumber(typed) {
  const digits = typed.replace(/\D/g, '').replace(/^265/, '').replace(/^0/, '');
  return digits.length === 9 ? `0${digits}` : '';
}

// Shows the typed number only if it is the one the request went to (the masked number agrees),
// so a number typed in this tab for another attempt is never shown as this one's.
function showFullNumber() {
  const sentTo = document.getElementById('sent-to');
  if (!sentTo) return;
  const masked = sentTo.getAttribute('data-masked') || '';
  const local = localNumber(storedNumber());
  if (local && local.slice(0, 4) === masked.slice(0, 4) && local.slice(-2) === masked.slice(-2)) {
    sentTo.textContent = `${local.slice(0, 4)} ${local.slice(4, 7)} ${local.slice(7)}`;
  }
}

function countWaitedTime() {
  const timer = document.getElementById('elapsed');
  if (!timer) return;
  const startedAt = Date.now() - Number(timer.getAttribute('data-seconds')) * 1000;
  const show = () => {
    const seconds = Math.floor((Date.now() - startedAt) / 1000);
    timer.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  };
  window.setInterval(show, 1000);
}

// A bank transfer's account closes at a set time: counts down to it (the server decides; this only shows it).
function countTimeLeft() {
  const timer = document.getElementById('time-left');
  if (!timer) return;
  const closesAt = Date.now() + Number(timer.getAttribute('data-seconds')) * 1000;
  const show = () => {
    const seconds = Math.max(0, Math.floor((closesAt - Date.now()) / 1000));
    timer.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
  };
  window.setInterval(show, 1000);
}

// Copy buttons for the details a customer types into their bank's app. Hidden without this
// script; shown only where the clipboard can be written, and the result is announced.
function setUpCopyButtons() {
  const announce = document.getElementById('copied');
  if (!window.navigator.clipboard || !announce) return;
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', () => {
      const label = button.getAttribute('aria-label').replace(/^Copy /, '');
      window.navigator.clipboard.writeText(button.getAttribute('data-copy')).then(
        () => {
          announce.textContent = `Copied the ${label}.`;
        },
        () => {
          announce.textContent = `Could not copy the ${label}: select it and copy it yourself.`;
        },
      );
    });
  }
}

// Asks "Cancel this payment?" in place of the link instead of loading the confirmation page.
function setUpCancelInPlace() {
  const link = document.getElementById('cancel');
  const question = document.getElementById('cancel-confirm');
  const keepPaying = document.getElementById('keep-paying');
  if (!link || !question || !keepPaying) return;
  link.addEventListener('click', (event) => {
    event.preventDefault();
    link.hidden = true;
    question.hidden = false;
    document.getElementById('cancel-question').focus();
  });
  keepPaying.addEventListener('click', (event) => {
    event.preventDefault();
    question.hidden = true;
    link.hidden = false;
    link.focus();
  });
}

// After the last failed try: back to the shop when the count reaches zero, unless the customer
// chooses to stay (a time limit must be possible to turn off). Without this script the page's
// <noscript> refresh goes instead.
function countDownToShop() {
  const countdown = document.getElementById('countdown');
  const shown = document.getElementById('countdown-seconds');
  const stay = document.getElementById('stay');
  const back = document.getElementById('return');
  if (!countdown || !shown || !stay || !back) return;
  const leaveAt = Date.now() + Number(countdown.getAttribute('data-seconds')) * 1000;
  const tick = window.setInterval(() => {
    const left = Math.max(0, Math.ceil((leaveAt - Date.now()) / 1000));
    shown.textContent = String(left);
    if (left === 0) {
      window.clearInterval(tick);
      window.location.href = back.href;
    }
  }, 250);
  stay.hidden = false;
  stay.addEventListener('click', () => {
    window.clearInterval(tick);
    document.getElementById('countdown-text').textContent = 'Go back whenever you are ready.';
    stay.hidden = true;
    back.focus();
  });
}

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
  if (number)
    reformatAtEnd(number, (value) =>
      value
        .replace(/\D/g, '')
        .slice(0, 19)
        .replace(/(\d{4})(?=\d)/g, '$1 '),
    );
  if (expiry)
    reformatAtEnd(expiry, (value) => (/^\d{3,4}$/.test(value) ? `${value.slice(0, 2)}/${value.slice(2)}` : value));
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
const BUSY_WAIT_MAX_MS = 10_000;

// How long a busy gateway (503) asked us to wait before asking again: its Retry-After, within reason.
function busyWaitMs(response) {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, BUSY_WAIT_MAX_MS) : POLL_MS;
}

// Asks the status route until the attempt settles, then goes where it says. A network error is
// retried, and so is a busy gateway's 503 after the wait it asks for (the payment is not failing:
// the gateway is shedding load); any other answer reloads the page so the server can show what happened.
function pollApprovalStatus() {
  const waiting = document.querySelector('[data-status-url]');
  if (!waiting) return;
  const url = waiting.getAttribute('data-status-url');
  const check = () => {
    fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then((response) => {
        if (response.status === 503) return window.setTimeout(check, busyWaitMs(response));
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
