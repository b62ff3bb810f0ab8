import type { Config, ConnectorName } from '../config.ts';
import type { Connector } from './connector.ts';
import type { LiveChannel } from './live-provider.ts';

/**
 * The connectors `LIVE_ROUTES` names, each made once from its settings, and the channel each
 * serves. One instance per connector, shared by every channel it serves and by its callbacks,
 * so that its cached credentials (an OAuth token) are fetched once.
 */
export function liveConnectors(config: Config): { byName: Map<string, Connector>; routes: Partial<Record<LiveChannel, Connector>> } {
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
  throw new Error(`the ${name} connector is not built yet (${config.liveRoutes})`);
}
