import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { paychanguConnector, type PaychanguOptions } from '../../src/connectors/paychangu/paychangu-connector.ts';
import type { Connector } from '../../src/connectors/connector.ts';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

export interface UpstreamPaychangu {
  gw: TestGateway;
  /** The operator's merchant account at the upstream. */
  merchant: MerchantCredentials;
  /** Where the upstream sends that account's webhooks: what would arrive at `/callbacks/paychangu`. */
  webhooks: Receiver;
  /** A gateway's settings for sending its live channels (`routes`, as `LIVE_ROUTES`) through this upstream's account. */
  liveEnv(routes: string): Record<string, string>;
  /** A connector to this upstream with the account's test keys; `overrides` point it elsewhere or shorten its timeout. */
  connector(overrides?: Partial<PaychanguOptions>): Connector;
  /** How many reads (GET requests: status queries) its API has answered so far, as its own metrics count them. */
  readsAnswered(): Promise<number>;
  close(): Promise<void>;
}

/**
 * PayChangu as the upstream: a second Lipira in test mode, which serves exactly PayChangu's
 * merchant API, with one merchant (the operator's account there) whose webhooks go to a receiver.
 * Its sandbox settles mobile money, bank transfers and bank payouts after `SANDBOX_MOBILE_DELAY`.
 */
export async function startUpstreamPaychangu(env: Record<string, string> = {}): Promise<UpstreamPaychangu> {
  const gw = await startTestGateway('sqlite', { SANDBOX_MOBILE_DELAY: '100ms', WORKER_INTERVAL: '50ms', ...env });
  const merchant = await gw.newMerchant('Operator account');
  const webhooks = await startReceiver();
  await updateMerchantSettings(gw.gateway.database.db, merchant.id, { webhookUrl: webhooks.url }, Date.now());
  return {
    gw,
    merchant,
    webhooks,
    liveEnv: (routes) => ({
      LIVE_ROUTES: routes,
      PAYCHANGU_UPSTREAM_URL: gw.url,
      PAYCHANGU_UPSTREAM_SECRET_KEY: merchant.test_secret_key,
      PAYCHANGU_UPSTREAM_WEBHOOK_SECRET: merchant.webhook_secret,
    }),
    async readsAnswered() {
      const metrics = await call(gw.url, '/metrics');
      const reads = [
        ...metrics.text.matchAll(/^lipira_http_requests_total\{route="([^"]*)",method="GET"[^}]*\} (\d+)$/gm),
      ];
      return reads.filter(([, route]) => route !== '/metrics').reduce((sum, [, , count]) => sum + Number(count), 0);
    },
    connector: (overrides = {}) =>
      paychanguConnector({
        url: gw.url,
        secretKey: merchant.test_secret_key,
        webhookSecret: merchant.webhook_secret,
        timeoutMs: 5_000,
        ...overrides,
      }),
    async close() {
      await webhooks.close();
      await gw.close();
    },
  };
}
