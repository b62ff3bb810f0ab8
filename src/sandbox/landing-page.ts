import { htmlDocument } from '../web/document.ts';
import { html, joinHtml, type SafeHtml } from '../web/html.ts';
import { landingUrl, STYLESHEET_PATH } from './sandbox-urls.ts';

/** What the checkout adds to `callback_url` and `return_url`, shown first and in this order. */
const REDIRECT_PARAMETERS = ['tx_ref', 'status', 'transaction_id'];

export type Query = Record<string, string | string[] | undefined>;

/**
 * The page a developer's `callback_url` and `return_url` may point at: what the redirect carried,
 * and the verification the merchant's server must still make. Everything from the query is
 * escaped: anyone can open this address with any query.
 */
export function renderLandingPage(query: Query, publicBaseUrl: string): SafeHtml {
  const rows = orderedParameters(query).map(
    ([name, value]) => html`<tr><th scope="row">${name}</th><td><code>${value}</code></td></tr>`,
  );
  const carried = rows.length
    ? html`<p>The hosted checkout sent the browser here with:</p>\n<table>\n${joinHtml(rows, '\n')}\n</table>`
    : html`<p>No parameters came with this visit. Give <code>${landingUrl(publicBaseUrl)}</code> as a session's <code>callback_url</code> and <code>return_url</code>: after paying or cancelling, the checkout sends the browser here with <code>tx_ref</code> and <code>status</code> (and <code>transaction_id</code> on success).</p>`;
  const txRef = firstValue(query.tx_ref);
  const verifyPath = `/verify-payment/${txRef ? encodeURIComponent(txRef) : '{tx_ref}'}`;
  return htmlDocument({
    title: 'Back from the checkout - Lipira sandbox',
    stylesheet: STYLESHEET_PATH,
    body: html`<main>
<p class="badge">Lipira sandbox</p>
<h1>Back from the checkout</h1>
${carried}
<h2>Now verify it from your server</h2>
<p>A redirect proves nothing: anyone can open this address with any query. Before giving value, ask the gateway with your secret key:</p>
<pre><code>curl -s ${publicBaseUrl + verifyPath} -H "Authorization: Bearer $KEY"</code></pre>
<p>Only <code>"status":"success"</code> in that answer, for the amount and currency you expect, means paid.</p>
<p class="note">This page stands in for your shop while you develop. It stores nothing and shows the same for live payments, whose customers should come back to your own site: give your own pages as <code>callback_url</code> and <code>return_url</code> before going live.</p>
</main>`,
  });
}

/** The checkout's parameters first, then whatever else the merchant's URL carried, each repeated value on its own row. */
function orderedParameters(query: Query): Array<[string, string]> {
  const names = [
    ...REDIRECT_PARAMETERS.filter((name) => Object.hasOwn(query, name)),
    ...Object.keys(query).filter((name) => !REDIRECT_PARAMETERS.includes(name)),
  ];
  return names.flatMap((name) => [query[name] ?? []].flat().map((value): [string, string] => [name, value]));
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export const LANDING_STYLESHEET = `body {
  margin: 0;
  padding: 24px 16px;
  background: #f2f4f7;
  color: #101828;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
main {
  max-width: 40rem;
  margin: 0 auto;
  padding: 24px;
  background: #fff;
  border: 1px solid #e4e7ec;
  border-radius: 12px;
}
h1 { font-size: 1.5rem; margin: 0 0 16px; }
h2 { font-size: 1.125rem; margin: 24px 0 8px; }
.badge {
  display: inline-block;
  margin: 0 0 8px;
  padding: 2px 8px;
  border-radius: 999px;
  background: #fff6db;
  color: #7a4a00;
  font-size: 0.875rem;
  font-weight: 600;
}
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-top: 1px solid #e4e7ec; vertical-align: top; }
th { font-weight: 600; white-space: nowrap; width: 1%; }
td code { overflow-wrap: anywhere; }
pre {
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  padding: 12px;
  background: #101828;
  color: #f2f4f7;
  border-radius: 8px;
  font-size: 0.875rem;
}
.note { color: #5d6675; font-size: 0.875rem; }
`;
