import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_OTP } from '../../src/payments/sandbox-provider.ts';
import { CheckoutClient, type PageResponse } from '../helpers/checkout-client.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { Cluster, FAULT, type Slot } from './scale-out-cluster.ts';

/** A sandbox instrument (contract §7): its number decides the outcome. */
export type Instrument = { method: 'card' | 'mobile'; number: string };

export const CARD_PAYS: Instrument = { method: 'card', number: '4242 4242 4242 4242' };
export const CARD_DECLINED: Instrument = { method: 'card', number: '4000 0000 0000 0002' };
export const MOBILE_PAYS: Instrument = { method: 'mobile', number: '0990000000' };
export const MOBILE_DECLINED: Instrument = { method: 'mobile', number: '0990000001' };

/**
 * What the customer was shown in the end: the merchant's callback with `status=success` (or the
 * receipt page, when another tab had paid first) is an acknowledged payment; the payment page
 * again with the decline is an acknowledged failure; `fault` means a process died under the flow.
 */
export type Paid = 'success' | 'declined' | 'fault';

/** An answer that is neither what the flow expects nor a connection failure: it fails the test. */
export class UnexpectedAnswer extends Error {}

const CALLBACK = new URL(String(currentBody().callback_url));
/** How long a mobile money attempt may stay pending: the sandbox delay is far shorter. */
const APPROVAL_LIMIT_MS = 20_000;

/**
 * Pays the session at `pagePath` through the hosted page served by `slot`, as a browser without
 * JavaScript does (cookie, form token, redirects by hand). A mobile money attempt's status is
 * polled through the rotation, as a page behind a load balancer would be; the page's own forms
 * stay on `slot`, which may die and come back on the same address meanwhile.
 */
export async function pay(cluster: Cluster, slot: Slot, pagePath: string, instrument: Instrument): Promise<Paid> {
  const client = new CheckoutClient(slot.url);
  const result = await cluster.guard(slot, `pay by ${instrument.method}`, async () => {
    const page = await client.get(pagePath);
    if (page.status !== 200) throw new UnexpectedAnswer(`${pagePath}: the page answered ${page.status}`);
    if (isReceipt(page)) return 'success' as const;
    const posted = instrument.method === 'card'
      ? await client.post(`${pagePath}/pay/card`, { card_number: instrument.number, expiry: '12/30', cvv: '123' })
      : await client.post(`${pagePath}/pay/mobile-money`, { mobile: instrument.number, operator: '' });
    // Another tab paid between the page and this form: the page now says so.
    if (posted.status === 422 && posted.text.includes('already ended')) return outcomeOf(await client.get(pagePath));
    if (posted.status !== 303 || !posted.location) throw new UnexpectedAnswer(`${pagePath}: the attempt answered ${posted.status}: ${excerpt(posted)}`);
    if (!posted.location.startsWith(slot.url)) return outcomeOf(posted);
    const attemptPath = new URL(posted.location).pathname;
    if (instrument.method === 'mobile') {
      const next = await waitForApproval(cluster, attemptPath);
      return outcomeOf(await client.follow(await client.get(next)));
    }
    const otpPage = await client.get(attemptPath);
    if (otpPage.status !== 200) return outcomeOf(await client.follow(otpPage));
    return outcomeOf(await client.follow(await client.post(`${attemptPath}/otp`, { otp: TEST_OTP })));
  });
  return result === FAULT ? 'fault' : result;
}

/**
 * Polls the attempt's status on whichever process is next until it names the page to go to.
 * A poll cut off by a crash is counted as a fault and tried again on another process.
 */
async function waitForApproval(cluster: Cluster, attemptPath: string): Promise<string> {
  const deadline = Date.now() + APPROVAL_LIMIT_MS;
  while (Date.now() < deadline) {
    const slot = cluster.next();
    const answer = await cluster.guard(slot, 'poll', async () => {
      const response = await fetch(`${slot.url}${attemptPath}/status`);
      if (response.status !== 200) throw new UnexpectedAnswer(`${attemptPath}/status answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { status: string; next_url: string | null };
    });
    if (answer !== FAULT && answer.next_url) return answer.next_url;
    await sleep(100);
  }
  throw new UnexpectedAnswer(`${attemptPath} was still pending after ${APPROVAL_LIMIT_MS} ms`);
}

function outcomeOf(response: PageResponse): 'success' | 'declined' {
  if (response.location) {
    const target = new URL(response.location);
    if (target.origin === CALLBACK.origin && target.pathname === CALLBACK.pathname && target.searchParams.get('status') === 'success') return 'success';
  } else if (response.status === 200 && isReceipt(response)) {
    return 'success';
  } else if (response.status === 200 && /role="alert"[^]*declined/.test(response.text)) {
    return 'declined';
  }
  throw new UnexpectedAnswer(`the flow ended on ${response.status} ${response.location ?? ''}: ${excerpt(response)}`);
}

const isReceipt = (response: PageResponse) => response.text.includes('id="receipt"');

function excerpt(response: PageResponse): string {
  const alert = /role="alert">.*?<p>(.*?)<\/p>/s.exec(response.text)?.[1];
  return alert ?? response.text.slice(0, 200);
}
