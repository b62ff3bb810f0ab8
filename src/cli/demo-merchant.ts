import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { claimAppState, countMerchants, DEMO_MERCHANT_MARKER } from '../merchants/merchant-repository.ts';
import { createMerchant, type MerchantCredentials } from '../merchants/merchant-service.ts';
import { landingUrl, webhookSinkUrl } from '../sandbox/sandbox-urls.ts';
import { print } from './output.ts';
import { DEMO_MOBILE_NUMBER, FIRST_USER_COMMAND, dashboardUrl, demoPaymentCommands } from '../home/first-steps.ts';
import { systemClock } from '../shared/clock.ts';

/**
 * The first start against an empty database creates a demo merchant and prints, once, what a
 * newcomer needs to take a test payment from start to end. The app_state marker keeps concurrent
 * first starts to one. When test webhooks may go to loopback, the demo merchant's go to the
 * gateway's own sink, so its first payment shows a delivered webhook.
 */
export async function introduceDemoMerchant(database: Database, config: Config): Promise<void> {
  if ((await countMerchants(database.db)) > 0) return;
  if (!(await claimAppState(database.db, DEMO_MERCHANT_MARKER, new Date().toISOString()))) return;
  const demo = await createMerchant(
    database.db,
    {
      name: 'Demo Store',
      email: 'demo@example.com',
      webhookUrl: config.webhookAllowLoopback ? webhookSinkUrl(config.publicBaseUrl) : null,
      feeBasisPoints: config.defaultFeeBasisPoints,
    },
    systemClock.now(),
  );
  print(firstStartBanner(demo, config));
}

function firstStartBanner(demo: MerchantCredentials, config: Config): string {
  const base = config.publicBaseUrl;
  const key = demo.test_secret_key;
  const commands = demoPaymentCommands(base, key);
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

${indented(commands.create)}

2. Open the checkout_url it answers in a browser and pay by mobile money with ${DEMO_MOBILE_NUMBER} (the
   page lists the other test numbers and cards). The browser comes back to
   ${landingUrl(base)}, which shows what the redirect carried.

3. Verify it, as your server must before giving value:

${indented(commands.verify)}

${webhooks}${receipts}

5. The dashboard, ${dashboardUrl(base)}, shows payments, payouts, balances, keys and webhooks
   to the users you create. Create the first, an operator who sees every merchant (the link it
   prints sets the password; a merchant's own users take --merchant ID --role owner):

  ${FIRST_USER_COMMAND}

More merchants: npx lipira merchant create --name NAME --email EMAIL
`;
}

/** A command as the banner shows it: every line indented by two, so that it stands out. */
const indented = (command: string) => command.replace(/^/gm, '  ');
