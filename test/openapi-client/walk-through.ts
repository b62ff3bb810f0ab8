/**
 * The README's walk-through as a merchant's server would write it with a client generated from
 * the gateway's OpenAPI document: `openapi-typescript` types and `openapi-fetch`. It compiles only
 * beside those types, which test/integration/openapi-client.test.ts generates from a running
 * gateway into a temporary folder (`lipira-api.ts`), type-checks this file against, then imports
 * it from there. So the project's own type-check skips this folder (tsconfig.json).
 *
 * Every call is typed by its path, and the bodies and answers by their operationIds: a path, an
 * operationId or a field the document lost fails the type-check.
 */
import createClient from 'openapi-fetch';
import type { operations, paths } from './lipira-api.ts';

type CreateSessionBody = operations['createCheckoutSession']['requestBody']['content']['application/json'];
type CreatedSession = operations['createCheckoutSession']['responses'][201]['content']['application/json'];
type Verification = operations['verifyPayment']['responses'][200]['content']['application/json'];
type LegacyVerification = operations['verifyLegacyPayment']['responses'][200]['content']['application/json'];

export type LipiraClient = ReturnType<typeof lipiraClient>;

/** A client of the gateway at `baseUrl` that sends the merchant's secret key. */
export function lipiraClient(baseUrl: string, secretKey: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${secretKey}` } });
}

/** Step 2: a checkout session whose redirects come back to the gateway's landing page. */
export async function createSession(client: LipiraClient, body: CreateSessionBody): Promise<CreatedSession> {
  const { data, error, response } = await client.POST('/payment', { body });
  if (!data) throw new Error(`creating the session answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/** Steps 3 and 5: what the gateway knows of the session (current generation). */
export async function verifyPayment(client: LipiraClient, txRef: string): Promise<Verification> {
  const { data, error, response } = await client.GET('/verify-payment/{tx_ref}', {
    params: { path: { tx_ref: txRef } },
  });
  if (!data) throw new Error(`verifying answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/** Step 5, legacy generation: the same session, amounts as text. */
export async function verifyLegacyPayment(client: LipiraClient, txRef: string): Promise<LegacyVerification> {
  const { data, error, response } = await client.GET('/api/verify-payment/{tx_ref}', {
    params: { path: { tx_ref: txRef } },
  });
  if (!data) throw new Error(`verifying (legacy) answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}
