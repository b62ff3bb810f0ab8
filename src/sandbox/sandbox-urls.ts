/** Where the sandbox's stand-ins for a merchant's server are served. */
export const LANDING_PATH = '/sandbox/landing';
export const WEBHOOK_SINK_PATH = '/sandbox/webhook';
export const STYLESHEET_PATH = '/sandbox/sandbox.css';

/** The landing page's address, to give as a session's `callback_url` and `return_url`. */
export function landingUrl(publicBaseUrl: string): string {
  return publicBaseUrl + LANDING_PATH;
}

/** The webhook sink's address, to give as a test merchant's webhook URL. */
export function webhookSinkUrl(publicBaseUrl: string): string {
  return publicBaseUrl + WEBHOOK_SINK_PATH;
}
