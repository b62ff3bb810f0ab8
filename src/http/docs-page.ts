/**
 * What makes `/docs` ours rather than Swagger UI's demo: its script, icon and policy. The page
 * itself and Swagger UI's files come from @fastify/swagger-ui.
 */

/**
 * Replaces the initializer @fastify/swagger-ui serves, which always reads its own copy of the
 * document at `/docs/json` and shows the top bar with a vendor's logo and a box to load any URL:
 * this script is loaded after it and sets `window.onload` again, before the page has loaded. The
 * document is the `/openapi.json` docs/integrate/api-reference.md names, found beside `/docs` wherever a proxy mounts
 * the gateway.
 */
export const DOCS_SCRIPT = `window.onload = function () {
  var base = window.location.pathname.replace(/\\/docs(\\/.*)?$/, '');
  window.ui = SwaggerUIBundle({
    url: base + '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: false,
    layout: 'BaseLayout',
    presets: [SwaggerUIBundle.presets.apis],
    validatorUrl: null,
    onComplete: function () {
      // Swagger UI wraps the server list in an empty <label>: screen readers would announce a nameless list.
      var servers = document.getElementById('servers');
      if (servers) servers.setAttribute('aria-label', 'Server');
      // Only its operations are a landmark: the title and the server list are named regions, so that none of the page is outside one.
      [['.information-container', 'About this API'], ['.schemes-server-container', 'Servers']].forEach(function (part) {
        var element = document.querySelector(part[0]);
        if (element) {
          element.setAttribute('role', 'region');
          element.setAttribute('aria-label', part[1]);
        }
      });
    },
  });
};
`;

/**
 * Swagger UI's colours that fail WCAG AA contrast (4.5:1) for their text, darkened: the method
 * badges, the version stamp, links and the buttons. Then what ran past its box on a 360 px phone
 * (the server list, a schema's arrow) and buttons that touched (Execute and Clear, a schema's
 * name and "Expand all").
 */
export const DOCS_STYLESHEET = `.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1a64b7; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #0b7344; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a5200; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0c7560; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b42318; }
.swagger-ui .info .title small.version-stamp { background: #3f6d00; }
.swagger-ui .info a, .swagger-ui .info .url { color: #1a64b7; }
.swagger-ui .btn.authorize { color: #0b7344; border-color: #0b7344; }
.swagger-ui .btn.authorize svg { fill: #0b7344; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4d4d4d; }
.swagger-ui .btn.execute { background-color: #1a64b7; border-color: #1a64b7; }
.swagger-ui .btn.cancel { color: #b42318; border-color: #b42318; }
.swagger-ui .download-contents { background: #4d5262; }
.swagger-ui .servers > label { margin-right: 0; }
.swagger-ui .json-schema-2020-12-accordion__icon svg { display: block; width: 100%; height: 100%; }
.swagger-ui .json-schema-2020-12-expand-deep-button { margin-left: 8px; }
.swagger-ui .btn-group { gap: 8px; }
.swagger-ui .btn-group .btn, .swagger-ui .btn-group .btn:first-child, .swagger-ui .btn-group .btn:last-child { border-radius: 4px; }
.swagger-ui .headerline { white-space: normal; overflow-wrap: anywhere; }
`;

/** Lipira's mark: an L on the checkout's accent colour. */
export const DOCS_FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f766e"/><path d="M11 7h4v14h8v4H11z" fill="#fff"/></svg>`;

/**
 * Our own files only, and nothing inline: Swagger UI needs `data:` images (its icons) and to fetch
 * the document from this origin, nothing else.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
