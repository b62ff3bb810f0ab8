import type { FakeAirtel } from '../fakes/airtel-server.ts';

/** The callback authentication key the gateway and the fake Airtel share. */
export const AIRTEL_CALLBACK_SECRET = 'airtel-callback-key';

/** Short waits, so that backoff and review happen within a test: first ask after 100 ms, review after 1.5 s. */
const LIVE_TIMINGS = {
  LIVE_SYNC_FIRST: '100ms',
  LIVE_SYNC_MAX: '300ms',
  LIVE_REVIEW_AFTER: '1500ms',
  CONNECTOR_TIMEOUT: '1s',
  WORKER_INTERVAL: '50ms',
};

/** A gateway's settings for live Airtel Money collections and payouts through `fake` (started with AIRTEL_CALLBACK_SECRET), with short live timings. */
export function liveAirtelEnv(fake: FakeAirtel): Record<string, string> {
  return {
    LIVE_ROUTES: 'airtel:airtel,payout:airtel',
    AIRTEL_API_URL: fake.url,
    AIRTEL_CLIENT_ID: fake.clientId,
    AIRTEL_CLIENT_SECRET: fake.clientSecret,
    AIRTEL_DISBURSEMENT_PIN: fake.disbursementPin,
    AIRTEL_PUBLIC_KEY: fake.publicKeyPem,
    AIRTEL_CALLBACK_SECRET: AIRTEL_CALLBACK_SECRET,
    ...LIVE_TIMINGS,
  };
}

let sequence = 0;
/** A fresh Airtel number (as 099…, and as Airtel is sent it, without 265), so that each test scripts its own customer. */
export function freshAirtelNumber(): { mobile: string; local: string } {
  sequence += 1;
  const local = `99${String(Date.now() % 1000).padStart(3, '0')}${String(sequence).padStart(4, '0')}`;
  return { mobile: `0${local}`, local };
}
