/* global document, window, fetch */
// The inline popup (docs/integrate/api-reference.md#inline-popup), served as /js/popup.js for merchants' pages:
//
//   PaychanguCheckout({ public_key, tx_ref, amount, currency, callback_url, return_url,
//     customer: { email, first_name, last_name }, customization: { title, description, logo },
//     meta, onSuccess, onClose })
//
// creates a checkout session with the public key (POST /popup/payment on the gateway that served
// this script, a CORS request) and shows its hosted page in an overlay frame. The frame's last page
// posts {tx_ref, status, transaction_id} to this page's origin only; a message is believed only
// from the gateway's origin and from this overlay's own frame.
// - success: onSuccess(result) is called first; the browser then goes to callback_url (with tx_ref,
//   transaction_id and status, as after the hosted page) unless onSuccess returned false, in which
//   case the overlay just closes.
// - the customer closes the overlay (close button or Escape): onClose({tx_ref, status: 'closed'}).
//   The session stays open until it expires; nothing is cancelled.
// - the payment ends without success (cancelled, too many failures, expired): the overlay closes,
//   onClose({tx_ref, status: 'failed'}) is called, and the browser goes to return_url unless
//   onClose returned false.
// Plain JavaScript with no build step and no dependencies: it runs on whatever page includes it.
(function () {
  'use strict';

  var script = document.currentScript;
  var GATEWAY = new URL(script ? script.src : '/', window.location.href).origin;
  var MESSAGE_SOURCE = 'lipira-checkout';
  var current = null;

  function PaychanguCheckout(options) {
    if (!options || typeof options !== 'object') throw new Error('PaychanguCheckout needs an options object');
    if (current) return; // one payment at a time
    var popup = openOverlay(options);
    current = popup;
    createSession(options, BUSY_TRIES, popup.busy).then(
      function (checkoutUrl) {
        if (current === popup) popup.show(checkoutUrl);
      },
      function (error) {
        if (current === popup) popup.fail(error.message);
      },
    );
  }

  // A busy gateway (503, shedding load) is asked again after the wait it gives, a few times,
  // before the customer is told: the payment has not failed, the gateway is catching up.
  var BUSY_TRIES = 3;
  var BUSY_WAIT_MAX_MS = 10000;

  function busyWaitMs(response) {
    var seconds = Number(response.headers.get('retry-after'));
    return isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, BUSY_WAIT_MAX_MS) : 1000;
  }

  /** The session, made with the public key; what the API said when it refused. */
  function createSession(options, busyTries, onBusy) {
    var body = {};
    for (var key in options) {
      if (
        Object.prototype.hasOwnProperty.call(options, key) &&
        key !== 'public_key' &&
        typeof options[key] !== 'function'
      )
        body[key] = options[key];
    }
    return fetch(GATEWAY + '/popup/payment', {
      method: 'POST',
      headers: { authorization: 'Bearer ' + options.public_key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
    }).then(
      function (response) {
        if (response.status === 503 && busyTries > 0) {
          onBusy();
          return new Promise(function (resolve) {
            window.setTimeout(resolve, busyWaitMs(response));
          }).then(function () {
            return createSession(options, busyTries - 1, onBusy);
          });
        }
        return response.json().then(function (answer) {
          if (response.ok && answer.data && answer.data.checkout_url) return answer.data.checkout_url;
          throw new Error(describe(answer && answer.message));
        });
      },
      function () {
        throw new Error('The payment page could not be reached. Check your connection and try again.');
      },
    );
  }

  /** The API's message as a sentence: a text, or its field messages one after another. */
  function describe(message) {
    if (typeof message === 'string') return message;
    if (message && typeof message === 'object') {
      var texts = [];
      for (var field in message) texts = texts.concat(message[field]);
      return texts.join(' ');
    }
    return 'The payment could not be started.';
  }

  function openOverlay(options) {
    var opener = document.activeElement;
    var title = (options.customization && options.customization.title) || 'Payment';

    var overlay = element(
      'div',
      'position:fixed;inset:0;z-index:2147483647;background:rgba(17,24,39,0.6);display:flex;align-items:center;justify-content:center;padding:16px;box-sizing:border-box;',
    );
    overlay.setAttribute('data-lipira-popup', '');
    var dialog = element(
      'div',
      'position:relative;width:100%;max-width:480px;height:100%;max-height:720px;background:#fff;border-radius:12px;overflow:hidden;box-shadow:0 20px 50px rgba(0,0,0,0.35);display:flex;flex-direction:column;',
    );
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    dialog.setAttribute('aria-label', title);
    dialog.tabIndex = -1;

    var bar = element('div', 'display:flex;justify-content:flex-end;padding:4px;border-bottom:1px solid #e5e7eb;');
    var close = element(
      'button',
      'font:16px/1 system-ui,sans-serif;padding:10px 14px;border:0;border-radius:8px;background:#f3f4f6;color:#111827;cursor:pointer;',
    );
    close.type = 'button';
    close.textContent = 'Close';
    close.setAttribute('aria-label', 'Close payment');
    bar.appendChild(close);

    var status = element(
      'p',
      'margin:auto;padding:24px;font:16px/1.5 system-ui,sans-serif;color:#111827;text-align:center;',
    );
    status.setAttribute('role', 'status');
    status.textContent = 'Opening the payment page…';

    var frame = element('iframe', 'flex:1;width:100%;border:0;display:none;');
    frame.title = title;
    frame.setAttribute('allow', 'payment');

    dialog.appendChild(bar);
    dialog.appendChild(status);
    dialog.appendChild(frame);
    overlay.appendChild(dialog);
    document.body.appendChild(overlay);
    close.focus();

    function remove() {
      window.removeEventListener('message', onMessage);
      document.removeEventListener('keydown', onKey, true);
      if (overlay.parentNode) overlay.parentNode.removeChild(overlay);
      current = null;
      if (opener && typeof opener.focus === 'function') opener.focus();
    }

    function end(callback, result, redirectUrl) {
      remove();
      var answer = typeof callback === 'function' ? callback(result) : undefined;
      if (answer !== false && redirectUrl && /^https?:\/\//i.test(redirectUrl)) window.location.assign(redirectUrl);
    }

    function onMessage(event) {
      // Only our gateway's frame speaks for the payment: any other window could post a message.
      if (event.origin !== GATEWAY || event.source !== frame.contentWindow) return;
      var data = event.data;
      if (!data || data.source !== MESSAGE_SOURCE || data.tx_ref !== options.tx_ref) return;
      if (data.status === 'success') {
        end(
          options.onSuccess,
          { tx_ref: data.tx_ref, status: 'success', transaction_id: data.transaction_id },
          data.redirect_url,
        );
      } else {
        end(options.onClose, { tx_ref: data.tx_ref, status: 'failed' }, data.redirect_url);
      }
    }

    function closedByCustomer() {
      end(options.onClose, { tx_ref: options.tx_ref, status: 'closed' }, null);
    }

    // Escape closes; Tab stays within the dialog (its close button and the frame).
    function onKey(event) {
      if (event.key === 'Escape') {
        event.preventDefault();
        closedByCustomer();
      } else if (event.key === 'Tab' && !dialog.contains(document.activeElement)) {
        event.preventDefault();
        close.focus();
      }
    }

    close.addEventListener('click', closedByCustomer);
    window.addEventListener('message', onMessage);
    document.addEventListener('keydown', onKey, true);

    return {
      show: function (url) {
        frame.src = url;
        frame.style.display = 'block';
        status.style.display = 'none';
      },
      fail: function (message) {
        status.textContent = message;
      },
      busy: function () {
        status.textContent = 'The payment page is busy: trying again in a moment…';
      },
    };
  }

  function element(tag, css) {
    var node = document.createElement(tag);
    // Through the CSSOM, which a merchant's CSP without 'unsafe-inline' styles still allows.
    node.style.cssText = css;
    return node;
  }

  window.PaychanguCheckout = PaychanguCheckout;
})();
