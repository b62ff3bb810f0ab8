/**
 * The dashboard's one script, served at /dashboard/assets/dashboard.js (the CSP allows scripts
 * from our own origin only, never inline). Every page works without it: it only adds what a
 * browser without scripts cannot do, a "Copy" button (`data-copy-text`), which stays hidden
 * until this runs. Kept in a module for the reason the stylesheet is (dashboard-styles.ts).
 */
export const DASHBOARD_JS = `'use strict';
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('button[data-copy-text]').forEach(function (button) {
    var status = document.getElementById(button.getAttribute('aria-describedby') || '');
    button.hidden = false;
    button.addEventListener('click', function () {
      var say = function (words) {
        if (status) status.textContent = words;
      };
      if (!navigator.clipboard) return say('Copying is not available here: download the codes or write them down.');
      navigator.clipboard.writeText(button.getAttribute('data-copy-text')).then(
        function () {
          say('Copied.');
        },
        function () {
          say('Copying was not allowed: download the codes or write them down.');
        },
      );
    });
  });
});
`;
