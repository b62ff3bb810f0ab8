import { setTimeout as sleep } from 'node:timers/promises';
import { CheckoutClient } from './checkout-client.ts';
import { currentBody } from './fixtures.ts';
import { call, type TestGateway } from './gateway.ts';

export interface Payment {
  txRef: string;
  /** Where the browser was sent at the end: callback_url on success, the page again after a failure. */
  landedAt: string | null;
}

/**
 * Creates a session with the merchant's key and pays it by mobile money through the hosted
 * page, the way a customer would, waiting for the sandbox to settle the attempt.
 */
export async function payByMobileMoney(
  base: string,
  key: string,
  mobile: string,
  overrides: Record<string, unknown> = {},
): Promise<Payment> {
  const body = currentBody(overrides);
  const created = await call(base, '/payment', { key, body });
  if (created.status !== 201) throw new Error(`create failed: ${created.text}`);
  return { txRef: String(body.tx_ref), landedAt: await payAtCheckout(base, created.body.data.checkout_url, mobile) };
}

/**
 * Pays the session behind `checkoutUrl` by mobile money through its hosted page, however the
 * session was created; answers where the browser was sent at the end.
 */
export async function payAtCheckout(base: string, checkoutUrl: string, mobile: string): Promise<string | null> {
  const client = new CheckoutClient(base);
  const pagePath = new URL(checkoutUrl).pathname;
  const page = await client.get(pagePath);
  // Without the page there is no form token to post: a customer would stop here too.
  if (page.status !== 200) throw new Error(`the payment page answered ${page.status}`);
  const posted = await client.post(`${pagePath}/pay/mobile-money`, { mobile, operator: '' });
  if (posted.status !== 303) throw new Error(`attempt refused: ${posted.text.slice(0, 300)}`);
  const attemptPath = new URL(posted.location!).pathname;
  for (let waited = 0; waited < 10_000; waited += 50) {
    const status = await (await fetch(`${base}${attemptPath}/status`)).json();
    if (status.next_url) return (await client.get(status.next_url)).location;
    await sleep(50);
  }
  throw new Error('the attempt never ended');
}

/**
 * Creates a session and pays it by card through the hosted page (the sandbox's 4242 card and its
 * one-time code); answers the session's tx_ref and the card attempt's charge_id.
 */
export async function payByCard(
  base: string,
  key: string,
  overrides: Record<string, unknown> = {},
): Promise<{ txRef: string; chargeId: string }> {
  const body = currentBody(overrides);
  const created = await call(base, '/payment', { key, body });
  if (created.status !== 201) throw new Error(`create failed: ${created.text}`);
  const client = new CheckoutClient(base);
  const pagePath = new URL(created.body.data.checkout_url).pathname;
  if ((await client.get(pagePath)).status !== 200) throw new Error('the payment page did not answer');
  const posted = await client.post(`${pagePath}/pay/card`, {
    card_number: '4242 4242 4242 4242',
    expiry: '12/40',
    cvv: '123',
  });
  if (posted.status !== 303) throw new Error(`card attempt refused: ${posted.text.slice(0, 300)}`);
  const attemptPath = new URL(posted.location!).pathname;
  const confirmed = await client.post(`${attemptPath}/otp`, { otp: '1234' });
  if (confirmed.status !== 303) throw new Error(`one-time code refused: ${confirmed.text.slice(0, 300)}`);
  return { txRef: String(body.tx_ref), chargeId: attemptPath.split('/').pop()! };
}

/**
 * The `charge_id` of the attempt a checkout session's page waits on (its latest charge), for the
 * test helpers that end it as the customer or the bank would.
 */
export async function waitingAttempt(gw: TestGateway, txRef: string): Promise<string> {
  const attempt = await gw.gateway.database.db
    .selectFrom('charges')
    .innerJoin('checkout_sessions', 'checkout_sessions.id', 'charges.session_id')
    .select('charges.charge_id')
    .where('checkout_sessions.tx_ref', '=', txRef)
    .orderBy('charges.created_at', 'desc')
    .executeTakeFirstOrThrow();
  return attempt.charge_id;
}

/** How the customer answers on the phone: approved, or declined and why (as the sandbox's numbers decline). */
export type PhoneAnswer = { status: 'success' } | { status: 'failed'; failure_code?: string };

/**
 * The customer answers a mobile money charge on the phone, through the test helper's completion
 * (the settler's own), so a browser test decides when an attempt ends rather than racing the
 * sandbox's delay.
 */
export async function answerOnThePhone(
  gw: TestGateway,
  key: string,
  chargeId: string,
  answer: PhoneAnswer,
): Promise<void> {
  const answered = await call(gw.url, `/test-helpers/direct-charges/${chargeId}/complete`, {
    method: 'POST',
    key,
    body: answer,
  });
  if (answered.status !== 200) throw new Error(`the answer was refused: ${answered.text}`);
}

/** The customer answers the attempt a checkout session's page waits on (`waitingAttempt`). */
export async function answerWaitingAttempt(
  gw: TestGateway,
  key: string,
  txRef: string,
  answer: PhoneAnswer,
): Promise<void> {
  await answerOnThePhone(gw, key, await waitingAttempt(gw, txRef), answer);
}
