/* global document, window */
// The last page of a session shown in the inline popup: tells the merchant's page how the payment
// ended, with postMessage to the exact origin that created the session (never '*'), so that no
// other page that framed ours could read it. popup.js checks where the message came from.
(function () {
  'use strict';
  document.addEventListener('DOMContentLoaded', function () {
    var holder = document.getElementById('frame-result');
    if (!holder) return;
    var result = JSON.parse(holder.getAttribute('data-result'));
    var origin = holder.getAttribute('data-origin');
    if (window.parent !== window) {
      window.parent.postMessage(
        {
          source: 'lipira-checkout',
          tx_ref: result.tx_ref,
          status: result.status,
          transaction_id: result.transaction_id,
          redirect_url: result.redirect_url,
        },
        origin,
      );
    } else if (result.redirect_url) {
      // Opened outside a frame: go where the hosted page would have gone (docs/integrate/api-reference.md#redirects).
      window.location.replace(result.redirect_url);
    }
  });
})();
