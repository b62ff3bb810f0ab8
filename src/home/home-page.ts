import type { Merchant } from '../merchants/merchant-repository.ts';
import { STYLESHEET_PATH } from '../sandbox/sandbox-urls.ts';
import { htmlDocument } from '../web/document.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { DEMO_MOBILE_NUMBER, FIRST_USER_COMMAND, dashboardUrl, demoPaymentCommands } from './first-steps.ts';

/**
 * The gateway's front page: the way to the dashboard and the API reference and, while the demo
 * merchant of the first start is the only one, the demo's next steps. The page is public, so the
 * demo's key is never on it (the first start printed it once). Styled by the sandbox landing
 * page's plain stylesheet: the same look for the gateway's other simple page.
 */
export function renderHomePage(publicBaseUrl: string, demo: Pick<Merchant, 'id' | 'name'> | null): SafeHtml {
  return htmlDocument({
    title: 'Lipira payment gateway',
    stylesheet: STYLESHEET_PATH,
    body: html`<main>
<h1>Lipira payment gateway</h1>
<p>A self-hosted, PayChangu-compatible payment gateway.</p>
<ul>
<li><a href="${dashboardUrl(publicBaseUrl)}">Dashboard</a>: payments, payouts, balances, keys and webhooks, for merchants and operators.</li>
<li><a href="${publicBaseUrl}/docs">API reference</a>: every route, with its requests and answers.</li>
</ul>
${demo && demoSteps(publicBaseUrl, demo)}</main>`,
  });
}

function demoSteps(base: string, demo: Pick<Merchant, 'id' | 'name'>): SafeHtml {
  const { create, verify } = demoPaymentCommands(base, '$KEY');
  return html`<h2>Next steps</h2>
<p>This gateway has one merchant, the demo the first start created: ${demo.name} (<code>${demo.id}</code>). Its test secret key was printed then, once; set it as <code>KEY</code> in your shell. Lost it? <code>npx lipira keys roll ${demo.id} --mode test</code> makes a new one.</p>
<ol>
<li>Create a checkout session:
<pre><code>${create}</code></pre></li>
<li>Open the <code>checkout_url</code> it answers and pay by mobile money with ${DEMO_MOBILE_NUMBER} (the page lists the other test numbers and cards).</li>
<li>Verify it, as your server must before giving value:
<pre><code>${verify}</code></pre></li>
<li>Open the dashboard: create its first user, an operator who sees every merchant, and follow the link it prints to set the password:
<pre><code>${FIRST_USER_COMMAND}</code></pre></li>
</ol>
<p class="note">These steps show until a second merchant is created (<code>npx lipira merchant create --name NAME --email EMAIL</code>).</p>
`;
}
