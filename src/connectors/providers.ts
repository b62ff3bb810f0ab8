import type { Config } from '../config.ts';
import { liveProvider } from './live-provider.ts';
import type { ProviderFor } from './provider.ts';
import { sandboxProvider } from './sandbox/sandbox-provider.ts';

/** Test keys pay through the sandbox, live keys through the live connectors. */
export function providersFor(config: Config): ProviderFor {
  const sandbox = sandboxProvider({ mobileDelayMs: config.sandboxMobileDelayMs });
  const live = liveProvider();
  return (mode) => (mode === 'test' ? sandbox : live);
}
