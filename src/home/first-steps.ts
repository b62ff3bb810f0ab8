import { landingUrl } from '../sandbox/sandbox-urls.ts';

/**
 * What a newcomer does first, as the first start's banner prints it (with the demo key) and the
 * front page of a fresh install shows it (without: the page is public).
 */

export const DEMO_TX_REF = 'demo-0001';

/** The sandbox number that approves a mobile money payment. */
export const DEMO_MOBILE_NUMBER = '0990000000';

/** Creates the dashboard's first user: an operator, who sees every merchant; it prints a link to set the password. */
export const FIRST_USER_COMMAND = 'npx lipira users create --operator --email you@example.com';

export const dashboardUrl = (publicBaseUrl: string) => `${publicBaseUrl}/dashboard`;

/**
 * The shell commands that create the demo's first checkout session and verify it, `key` being the
 * test secret key or a shell variable standing for it; continuation lines indented by two.
 */
export function demoPaymentCommands(publicBaseUrl: string, key: string): { create: string; verify: string } {
  const authorization = `-H "Authorization: Bearer ${key}"`;
  return {
    create: `curl -s -X POST ${publicBaseUrl}/payment \\
  ${authorization} \\
  -H 'Content-Type: application/json' -H 'Accept: application/json' \\
  -d '${demoSessionBody(publicBaseUrl)}'`,
    verify: `curl -s ${publicBaseUrl}/verify-payment/${DEMO_TX_REF} ${authorization}`,
  };
}

/** The body of the demo's first checkout session, as JSON: its redirects go to the sandbox's landing page. */
function demoSessionBody(publicBaseUrl: string): string {
  return JSON.stringify({
    tx_ref: DEMO_TX_REF,
    amount: 1000,
    currency: 'MWK',
    first_name: 'Jane',
    last_name: 'Banda',
    email: 'jane@example.com',
    callback_url: landingUrl(publicBaseUrl),
    return_url: landingUrl(publicBaseUrl),
  });
}
