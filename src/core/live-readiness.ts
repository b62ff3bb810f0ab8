import type { LiveRoutes } from '../config.ts';
import type { LiveChannel } from '../connectors/live-provider.ts';

/** The live channels that collect payments (`payout` only pays out). */
const COLLECTING: readonly LiveChannel[] = ['airtel', 'tnm', 'card', 'bank'];

/**
 * The live channels that can collect a payment in `currency`, as the checkout page offers them:
 * Airtel Money, TNM Mpamba and bank transfers take MWK only, cards any currency a session may be in.
 */
export function collectingChannels(currency: string): readonly LiveChannel[] {
  return currency === 'MWK' ? COLLECTING : ['card'];
}

/** Whether the operator routed a live method that takes `currency`: without one, a live payment in it cannot be paid. */
export function takesLivePayments(routes: LiveRoutes, currency: string): boolean {
  return collectingChannels(currency).some((channel) => routes[channel] !== undefined);
}

/** Whether the operator routed any live method that collects payments. */
export function takesAnyLivePayment(routes: LiveRoutes): boolean {
  return COLLECTING.some((channel) => routes[channel] !== undefined);
}

/** Why a live payment in `currency` is refused before anything is recorded, naming what the operator must set. */
export function liveNotSetUpMessage(currency: string): string {
  const channels = collectingChannels(currency).map((channel) => `${channel}:…`);
  const setting = channels.length === 1 ? `LIVE_ROUTES=${channels[0]}` : `one of ${channels.join(', ')} in LIVE_ROUTES`;
  return `Live payments are not set up on this gateway: its operator must route a payment method that takes ${currency} (${setting}).`;
}
