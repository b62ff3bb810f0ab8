import { LIVE_CHANNELS, type LiveChannel } from '../connectors/live-provider.ts';
import { ConfigError } from './config-error.ts';
import type { Kind } from './kinds.ts';

/** The connectors Lipira has, and the channels each can serve. */
export const CONNECTOR_CHANNELS = {
  airtel: ['airtel', 'payout'],
  paychangu: ['tnm', 'airtel', 'card', 'bank', 'payout'],
} as const satisfies Record<string, readonly LiveChannel[]>;
export type ConnectorName = keyof typeof CONNECTOR_CHANNELS;

export type LiveRoutes = Partial<Record<LiveChannel, ConnectorName>>;

const isLiveChannel = (name: string): name is LiveChannel => (LIVE_CHANNELS as readonly string[]).includes(name);
const isConnectorName = (name: string): name is ConnectorName => Object.hasOwn(CONNECTOR_CHANNELS, name);

/** `channel:connector` pairs, comma-separated (`airtel:airtel,tnm:paychangu`); empty: no live channel. */
export const liveRoutes: Kind<LiveRoutes> = {
  parse(raw, variable) {
    const routes: LiveRoutes = {};
    for (const pair of (raw ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const [channel = '', connector = '', extra] = pair.split(':').map((part) => part.trim());
      if (extra !== undefined || !isLiveChannel(channel) || !isConnectorName(connector)) {
        throw new ConfigError(
          variable,
          `must be channel:connector pairs, channels ${LIVE_CHANNELS.join(', ')}, connectors ${Object.keys(CONNECTOR_CHANNELS).join(', ')} (got "${pair}")`,
        );
      }
      if (routes[channel]) throw new ConfigError(variable, `names the ${channel} channel twice`);
      if (!(CONNECTOR_CHANNELS[connector] as readonly LiveChannel[]).includes(channel)) {
        throw new ConfigError(
          variable,
          `routes ${channel} to ${connector}, which serves only ${CONNECTOR_CHANNELS[connector].join(', ')}`,
        );
      }
      routes[channel] = connector;
    }
    return routes;
  },
  show: (routes) =>
    Object.entries(routes)
      .map(([channel, connector]) => `${channel}:${connector}`)
      .join(',') || null,
};
