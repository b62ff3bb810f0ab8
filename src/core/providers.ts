import type { Config } from '../config.ts';
import type { Clock } from '../shared/clock.ts';
import type { Connector } from '../connectors/connector.ts';
import { liveProvider, type LiveChannel } from '../connectors/live-provider.ts';
import type { ProviderFor } from '../connectors/provider.ts';
import { sandboxProvider } from '../connectors/sandbox/sandbox-provider.ts';

/** Test keys pay through the sandbox, live keys through the connectors `LIVE_ROUTES` gives each channel. */
export function providersFor(
  config: Config,
  routes: Partial<Record<LiveChannel, Connector>>,
  clock: Clock,
): ProviderFor {
  const sandbox = sandboxProvider({ mobileDelayMs: config.sandboxMobileDelayMs, clock });
  const live = liveProvider({
    routes,
    firstAskMs: config.liveSyncFirstMs,
    maxAskMs: config.liveSyncMaxMs,
    reviewAfterMs: config.liveReviewAfterMs,
    clock,
  });
  return (mode) => (mode === 'test' ? sandbox : live);
}
