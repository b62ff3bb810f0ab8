import type { Config, ConnectorName } from '../config.ts';
import { airtelConnector } from '../connectors/airtel/airtel-connector.ts';
import type { Connector } from '../connectors/connector.ts';
import type { LiveChannel } from '../connectors/live-provider.ts';
import { paychanguConnector } from '../connectors/paychangu/paychangu-connector.ts';

/**
 * The connectors `LIVE_ROUTES` names, each made once from its settings, and the channel each
 * serves. One instance per connector, shared by every channel it serves and by its callbacks,
 * so that its cached credentials (an OAuth token) are fetched once.
 */
export function liveConnectors(config: Config): {
  byName: Map<string, Connector>;
  routes: Partial<Record<LiveChannel, Connector>>;
} {
  const byName = new Map<string, Connector>();
  const routes: Partial<Record<LiveChannel, Connector>> = {};
  for (const [channel, name] of Object.entries(config.liveRoutes) as Array<[LiveChannel, ConnectorName]>) {
    const connector = byName.get(name) ?? made(name, config);
    byName.set(name, connector);
    routes[channel] = connector;
  }
  return { byName, routes };
}

function made(name: ConnectorName, config: Config): Connector {
  switch (name) {
    case 'paychangu':
      // loadConfig refuses a route to paychangu without its secret key.
      return paychanguConnector({
        url: config.paychanguUpstreamUrl,
        secretKey: config.paychanguUpstreamSecretKey ?? '',
        webhookSecret: config.paychanguUpstreamWebhookSecret,
        timeoutMs: config.connectorTimeoutMs,
      });
    case 'airtel':
      // loadConfig refuses a route to airtel without its client id and secret.
      return airtelConnector({
        apiUrl: config.airtelApiUrl,
        clientId: config.airtelClientId ?? '',
        clientSecret: config.airtelClientSecret ?? '',
        country: config.airtelCountry,
        currency: config.airtelCurrency,
        disbursementPin: config.airtelDisbursementPin,
        publicKeyPem: config.airtelPublicKey,
        callbackSecret: config.airtelCallbackSecret,
        timeoutMs: config.connectorTimeoutMs,
      });
  }
}
