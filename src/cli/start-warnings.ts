import type { Config } from '../config.ts';
import { CALLBACK_ASK_WINDOW_MS } from '../core/provider-asks.ts';

/**
 * What an operator starting `lipira serve` must hear about settings that are allowed but costly:
 * Airtel's callback authentication is optional on its side, so a gateway routing to Airtel without
 * its key starts, but anyone can then post callbacks to it.
 */
export function startWarnings(config: Config): string[] {
  const toAirtel = Object.entries(config.liveRoutes)
    .filter(([, connector]) => connector === 'airtel')
    .map(([channel]) => channel);
  if (toAirtel.length === 0 || config.airtelCallbackSecret !== null) return [];
  return [
    `LIVE_ROUTES sends ${toAirtel.join(', ')} to Airtel Money but AIRTEL_CALLBACK_SECRET is unset, so /callbacks/airtel accepts callbacks nobody signed. ` +
      `Forged callbacks cannot move money (the gateway asks Airtel and records only its answer), but each costs an Airtel status query ` +
      `(at most one per payment every ${CALLBACK_ASK_WINDOW_MS / 1000} s). Turn callback authentication on in the Airtel portal and set AIRTEL_CALLBACK_SECRET to its key.`,
  ];
}
