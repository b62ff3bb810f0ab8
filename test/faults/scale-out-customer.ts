import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_OTP } from '../../src/connectors/sandbox/sandbox-provider.ts';
import { CheckoutClient, type PageResponse } from '../helpers/checkout-client.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { FAULT, type Cluster, type Slot } from './scale-out-cluster.ts';

/** A sandbox instrument (docs/integrate/api-reference.md#sandbox-test-instruments): its number decides the outcome. */
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
/**
 * How long a mobile money attempt may stay pending. The sandbox delay is far shorter, but an
 * attempt recorded by the process the test kills, before it asked the provider, is ended by the
 * settler only a minute later (`ANSWER_RECOVERY_MS` in src/checkout/checkout-payments.ts), and a
 * twin tab with the same number waits for that very attempt.
 */
const APPROVAL_LIMIT_MS = 90_000;

/** Thrown inside a flow when one of its requests was cut off by a crash: the flow ends there. */
class CutOff extends Error {}

/** Sends one request of a flow to `slot` (by default the next process in the rotation). */
type Hop = <T>(request: () => Promise<T>, slot?: Slot) => Promise<T>;

/**
 * Pays the session at `pagePath` through the hosted page, as a browser without JavaScript does
 * (cookie, form token, redirects by hand). The page is opened on `first`; every later request of
 * the flow (the form posts, the status polls, the pages after them) goes to the next process in
 * the rotation, as behind a load balancer without sticky sessions, so a form token issued by one
 * process is checked by another.
 */
export async function pay(cluster: Cluster, first: Slot, pagePath: string, instrument: Instrument): Promise<Paid> {
  const client = new CheckoutClient(first.url);
  const hop: Hop = async (request, slot = cluster.next()) => {
    client.base = slot.url;
    const answer = await cluster.guard(slot, `pay by ${instrument.method}`, request);
    if (answer === FAULT) throw new CutOff();
    return answer;
  };
  const internal = (response: PageResponse) => response.location !== null && response.location.startsWith(client.base);
  try {
    const page = await hop(() => client.get(pagePath), first);
    if (page.status !== 200) throw new UnexpectedAnswer(`${pagePath}: the page answered ${page.status}`);
    if (isReceipt(page)) return 'success';
    const posted = await hop(() =>
      instrument.method === 'card'
        ? client.post(`${pagePath}/pay/card`, { card_number: instrument.number, expiry: '12/30', cvv: '123' })
        : client.post(`${pagePath}/pay/mobile-money`, { mobile: instrument.number, operator: '' }),
    );
    // Another tab paid between the page and this form: the page now says so.
    if (posted.status === 422 && posted.text.includes('already ended'))
      return outcomeOf(await hop(() => client.get(pagePath)));
    // Another tab's attempt is in flight (one at a time per session): the customer waits for it.
    if (posted.status === 422 && /already waiting for approval|is being confirmed; wait a moment/.test(posted.text))
      return await waitForTheOtherTab(client, hop, pagePath);
    if (posted.status !== 303 || !posted.location)
      throw new UnexpectedAnswer(`${pagePath}: the attempt answered ${posted.status}: ${excerpt(posted)}`);
    if (!internal(posted)) return outcomeOf(posted);
    const attemptPath = new URL(posted.location).pathname;
    if (instrument.method === 'mobile') {
      const next = await waitForApproval(client, hop, attemptPath);
      return outcomeOf(await hop(async () => client.follow(await client.get(next))));
    }
    const otpPage = await hop(() => client.get(attemptPath));
    // A redirect names the process that answered; the rest of the flow goes to the next one, so the path is asked there.
    if (otpPage.status !== 200)
      return outcomeOf(
        internal(otpPage)
          ? await hop(async () => client.follow(await client.get(new URL(otpPage.location!).pathname)))
          : otpPage,
      );
    const confirmed = await hop(async () => client.follow(await client.post(`${attemptPath}/otp`, { otp: TEST_OTP })));
    // Another tab paid another way before this card's code was sent: the card was never charged.
    if (confirmed.status === 200 && confirmed.text.includes('gave way to another payment'))
      return await waitForTheOtherTab(client, hop, pagePath);
    // Another tab sent the same card's code first: this one waits for the issuer's answer to it.
    if (confirmed.status === 200 && confirmed.text.includes('data-status-url')) {
      const next = await waitForApproval(client, hop, attemptPath);
      return outcomeOf(await hop(async () => client.follow(await client.get(next))));
    }
    return outcomeOf(confirmed);
  } catch (error) {
    if (error instanceof CutOff) return 'fault';
    throw error;
  }
}

/**
 * Polls the attempt's status, each time on the next process, until it names the page to go to.
 * A poll cut off by a crash is counted and simply made again, as the page's script would.
 */
async function waitForApproval(client: CheckoutClient, hop: Hop, attemptPath: string): Promise<string> {
  const deadline = Date.now() + APPROVAL_LIMIT_MS;
  while (Date.now() < deadline) {
    const answer = await hop(async () => {
      const response = await fetch(`${client.base}${attemptPath}/status`);
      if (response.status !== 200)
        throw new UnexpectedAnswer(`${attemptPath}/status answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { status: string; next_url: string | null };
    }).catch((error: unknown) => {
      if (error instanceof CutOff) return null;
      throw error;
    });
    if (answer?.next_url) return answer.next_url;
    await sleep(100);
  }
  throw new UnexpectedAnswer(`${attemptPath} was still pending after ${APPROVAL_LIMIT_MS} ms`);
}

/** Reloads the payment page, each time on the next process, until the other tab's payment shows as the receipt. */
async function waitForTheOtherTab(client: CheckoutClient, hop: Hop, pagePath: string): Promise<Paid> {
  const deadline = Date.now() + APPROVAL_LIMIT_MS;
  while (Date.now() < deadline) {
    const page = await hop(() => client.get(pagePath));
    if (page.status !== 200 || !page.text.includes('name="mobile"')) return outcomeOf(page);
    await sleep(100);
  }
  throw new UnexpectedAnswer(`${pagePath}: the other tab's payment was still under way after ${APPROVAL_LIMIT_MS} ms`);
}

function outcomeOf(response: PageResponse): 'success' | 'declined' {
  if (response.location) {
    const target = new URL(response.location);
    if (
      target.origin === CALLBACK.origin &&
      target.pathname === CALLBACK.pathname &&
      target.searchParams.get('status') === 'success'
    )
      return 'success';
  } else if (response.status === 200 && isReceipt(response)) {
    return 'success';
  } else if (response.status === 200 && /role="alert"[^]*class="tries-left"/.test(response.text)) {
    return 'declined';
  }
  throw new UnexpectedAnswer(`the flow ended on ${response.status} ${response.location ?? ''}: ${excerpt(response)}`);
}

const isReceipt = (response: PageResponse) => response.text.includes('id="receipt"');

function excerpt(response: PageResponse): string {
  const alert = /role="alert">.*?<p>(.*?)<\/p>/s.exec(response.text)?.[1];
  return alert ?? /<h1[^>]*>(.*?)<\/h1>/s.exec(response.text)?.[1] ?? response.text.slice(0, 200);
}
