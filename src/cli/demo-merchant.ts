import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { claimAppState, countMerchants } from '../merchants/merchant-repository.ts';
import { createMerchant, type MerchantCredentials } from '../merchants/merchant-service.ts';
import { landingUrl, webhookSinkUrl } from '../sandbox/sandbox-urls.ts';
import { print } from './output.ts';

/**
 * The first start against an empty database creates a demo merchant and prints, once, what a
 * newcomer needs to take a test payment from start to end. The app_state marker keeps concurrent
 * first starts to one. When test webhooks may go to loopback, the demo merchant's go to the
 * gateway's own sink, so its first payment shows a delivered webhook.
 */
export async function introduceDemoMerchant(database: Database, config: Config): Promise<void> {
  if ((await countMerchants(database.db)) > 0) return;
  if (!(await claimAppState(database.db, 'demo_merchant_created', new Date().toISOString()))) return;
  const demo = await createMerchant(database.db, {
    name: 'Demo Store',
    email: 'demo@example.com',
    webhookUrl: config.webhookAllowLoopback ? webhookSinkUrl(config.publicBaseUrl) : null,
    feeBasisPoints: config.defaultFeeBasisPoints,
  });
  print(firstStartBanner(demo, config));
}

function firstStartBanner(demo: MerchantCredentials, config: Config): string {
  const base = config.publicBaseUrl;
  const key = demo.test_secret_key;
  const body = JSON.stringify({
    tx_ref: 'demo-0001',
    amount: 1000,
    currency: 'MWK',
    first_name: 'Jane',
    last_name: 'Banda',
    email: 'jane@example.com',
    callback_url: landingUrl(base),
    return_url: landingUrl(base),
  });
  const webhooks = config.webhookAllowLoopback
    ? `4. Its webhooks go to the gateway's own sink, ${webhookSinkUrl(base)}; the delivery:

  npx lipira webhooks list --merchant ${demo.id}`
    : `4. To see a webhook delivered without a server of your own, restart with
   WEBHOOK_ALLOW_LOOPBACK=on (test webhooks may then go to this machine) and point the demo
   merchant at the gateway's own sink:

  npx lipira merchant update ${demo.id} --webhook-url ${webhookSinkUrl(base)}
  npx lipira webhooks list --merchant ${demo.id}`;
  const receipts = config.smtpUrl === null ? `\n\nIts receipts are written to ${config.outboxDir}.` : '';
  return `
Created a demo merchant (${demo.id}). Its test secret key is shown only this once:

  ${key}

The API reference: ${base}/docs

1. Create a checkout session:

  curl -s -X POST ${base}/payment \\
    -H 'Authorization: Bearer ${key}' \\
    -H 'Content-Type: application/json' -H 'Accept: application/json' \\
    -d '${body}'

2. Open the checkout_url it answers in a browser and pay by mobile money with 0990000000 (the
   page lists the other test numbers and cards). The browser comes back to
   ${landingUrl(base)}, which shows what the redirect carried.

3. Verify it, as your server must before giving value:

  curl -s ${base}/verify-payment/demo-0001 -H 'Authorization: Bearer ${key}'

${webhooks}${receipts}

More merchants: npx lipira merchant create --name NAME --email EMAIL
`;
}
