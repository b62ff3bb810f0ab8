/**
 * Live payments set up as far as creating sessions needs: Airtel Money routed to an Airtel API
 * where nothing listens. A live MWK session may then be made, and every live attempt is still
 * refused at once: no Airtel token can be had, so nothing is sent, and no other channel has a route.
 */
export const LIVE_SESSIONS_ONLY: Record<string, string> = {
  LIVE_ROUTES: 'airtel:airtel',
  AIRTEL_API_URL: 'http://127.0.0.1:9',
  AIRTEL_CLIENT_ID: 'lipira-test-client',
  AIRTEL_CLIENT_SECRET: 'lipira-test-secret',
};
