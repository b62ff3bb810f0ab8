import { setTimeout as sleep } from 'node:timers/promises';
import { SESSION_REQUEST, sessionBody } from '../requests.ts';
import type { Answer, GatewayClient } from './gateway-client.ts';
import type { SoakLog, Step } from './soak-log.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/** What every payment of the soak shares. */
export interface Journey {
  client: GatewayClient;
  /** The gateway's origin, which a browser's form post names as its own. */
  origin: string;
  secretKey: string;
  receiver: WebhookReceiver;
  log: SoakLog;
}

/** The sandbox's Airtel Money number that succeeds (the page's test instruments). */
const SUCCEEDING_NUMBER = '0990000000';
/** As the waiting page's script asks (checkout.js's POLL_MS): a second before the first poll and between polls. */
const POLL_MS = 1000;
/** A sandbox payment settles after SANDBOX_MOBILE_DELAY: one still pending after this many polls is stuck. */
const MAX_POLLS = 30;
/** How long the merchant waits for its webhook before counting it missing. */
const WEBHOOK_WAIT_MS = 30_000;
const ATTEMPT_PATH = /^\/checkout\/[^/]+\/attempts\/[^/]+$/;

/** How often a step refused as busy (503) is asked again, after the wait it gives, as the page's script and a patient customer do. */
const BUSY_RETRIES = 10;
const BUSY_WAIT_MAX_MS = 10_000;

/** The gateway refused the payment's create as busy: shed, which the merchant's server would try again later. */
class Refused extends Error {}

/** The step a payment stopped at, and why. */
class StepFailed extends Error {
  constructor(
    readonly step: Step,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One payment as the merchant's server and the customer's browser make it: the session, the
 * page, the mobile money form, the waiting page and its polls until the approval, the way back
 * to the shop; then the merchant's webhook and its verification. A payment stops at its first
 * wrong answer, which is counted against that step.
 */
export async function pay(journey: Journey, txRef: string): Promise<void> {
  const startedAt = performance.now();
  journey.log.begin(startedAt);
  try {
    await payOrThrow(journey, txRef);
    journey.log.complete(performance.now(), startedAt);
  } catch (error) {
    if (error instanceof Refused) journey.log.refuse(performance.now());
    else if (error instanceof StepFailed) journey.log.fail(error.step, error.message, performance.now());
    else throw error;
  }
}

async function payOrThrow(journey: Journey, txRef: string): Promise<void> {
  const { client, origin, secretKey, receiver } = journey;
  const merchant = { authorization: `Bearer ${secretKey}`, accept: 'application/json' };

  const created = await timed(
    journey,
    'create',
    () => client.request('POST', '/payment', { ...merchant, 'content-type': 'application/json' }, sessionBody(txRef)),
    [201],
  );
  const checkoutUrl = (json(created) as { data?: { checkout_url?: unknown } } | null)?.data?.checkout_url;
  if (typeof checkoutUrl !== 'string') throw new StepFailed('create', 'no checkout_url in the answer');
  const pagePath = new URL(checkoutUrl).pathname;

  const page = await timed(journey, 'page', () => client.request('GET', pagePath), [200]);
  const cookie = /^lipira_csrf=[^;]+/.exec(String(page.headers['set-cookie'] ?? ''))?.[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (!cookie || !csrf) throw new StepFailed('page', 'no anti-forgery cookie or form token');
  // The cookie's path is the checkout's: the browser sends it with every request below it.
  const browser = { cookie };

  const form = new URLSearchParams({ csrf, mobile: SUCCEEDING_NUMBER, operator: 'airtel' }).toString();
  const posted = await timed(
    journey,
    'pay',
    () =>
      client.request(
        'POST',
        `${pagePath}/pay/mobile-money`,
        { ...browser, origin, 'content-type': 'application/x-www-form-urlencoded' },
        form,
      ),
    [303],
  );
  const attemptPath = String(posted.headers.location ?? '');
  if (!ATTEMPT_PATH.test(attemptPath) || !attemptPath.startsWith(`${pagePath}/`))
    throw new StepFailed('pay', `sent to "${attemptPath}", not to an attempt's page`);
  receiver.expect(txRef);

  // An attempt that settled before its page was asked for (the gateway took a second) sends the browser on at once.
  const waiting = await timed(journey, 'waiting', () => client.request('GET', attemptPath, browser), [200, 303]);
  if (waiting.status === 303) expectShop('waiting', waiting, txRef);
  else {
    const nextPath = await pollUntilSettled(journey, `${attemptPath}/status`, browser);
    expectShop('back', await timed(journey, 'back', () => client.request('GET', nextPath, browser), [303]), txRef);
  }

  if (!(await receiver.arrival(txRef, WEBHOOK_WAIT_MS)))
    throw new StepFailed('webhook', `no webhook within ${WEBHOOK_WAIT_MS / 1000} s`);
  const verified = await timed(
    journey,
    'verify',
    () => client.request('GET', `/verify-payment/${encodeURIComponent(txRef)}`, merchant),
    [200],
  );
  const status = (json(verified) as { data?: { status?: unknown } } | null)?.data?.status;
  if (status !== 'success') throw new StepFailed('verify', `says "${String(status)}" after the webhook`);
}

/**
 * Sends one request, timing it into the log, and fails the step on an error or a status not in
 * `expected`. A 503 (the gateway shedding load) refuses a create: the payment ends there; any
 * later step is asked again after the `Retry-After` it gives, as the hosted page's script does.
 */
async function timed({ log }: Journey, step: Step, send: () => Promise<Answer>, expected: number[]): Promise<Answer> {
  for (let tries = 0; ; tries++) {
    const startedAt = performance.now();
    let answer: Answer;
    try {
      answer = await send();
    } catch (error) {
      log.unanswered(performance.now());
      throw new StepFailed(step, error instanceof Error ? error.message : String(error));
    }
    if (answer.status === 503) {
      log.busy(startedAt, performance.now() - startedAt);
      if (step === 'create') throw new Refused();
      if (tries === BUSY_RETRIES) throw new StepFailed(step, `still busy (503) after ${BUSY_RETRIES} tries`);
      await sleep(busyWaitMs(answer), undefined, { ref: false });
      continue;
    }
    return checked(log, step, startedAt, answer, expected);
  }
}

function busyWaitMs(answer: Answer): number {
  const seconds = Number(answer.headers['retry-after']);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, BUSY_WAIT_MAX_MS) : POLL_MS;
}

function checked(log: SoakLog, step: Step, startedAt: number, answer: Answer, expected: number[]): Answer {
  log.record(step, startedAt, performance.now() - startedAt);
  if (!expected.includes(answer.status))
    throw new StepFailed(
      step,
      `HTTP ${answer.status} (expected ${expected.join(' or ')}) ${answer.body.slice(0, 120)}`,
    );
  return answer;
}

/** Asks the attempt's status as the waiting page's script does, until it says where to go: the path it gives. */
async function pollUntilSettled(journey: Journey, statusPath: string, browser: { cookie: string }): Promise<string> {
  for (let poll = 0; poll < MAX_POLLS; poll++) {
    // Unreferenced: a payment still polling when the bench ends must not keep it alive.
    await sleep(POLL_MS, undefined, { ref: false });
    const answer = await timed(journey, 'poll', () => journey.client.request('GET', statusPath, browser), [200]);
    const status = json(answer) as { status?: unknown; next_url?: unknown } | null;
    if (typeof status?.next_url !== 'string') continue;
    if (status.status !== 'success') throw new StepFailed('poll', `the attempt ended "${String(status.status)}"`);
    return status.next_url;
  }
  throw new StepFailed('poll', `still pending after ${MAX_POLLS} polls`);
}

/** The browser is sent back to the merchant's callback_url, told this payment succeeded. */
function expectShop(step: Step, answer: Answer, txRef: string): void {
  const location = String(answer.headers.location ?? '');
  const landing = URL.canParse(location) ? new URL(location) : null;
  const home =
    landing !== null &&
    location.startsWith(SESSION_REQUEST.callback_url) &&
    landing.searchParams.get('tx_ref') === txRef &&
    landing.searchParams.get('status') === 'success';
  if (!home) throw new StepFailed(step, `sent to "${location}", not back to the shop with status=success`);
}

function json(answer: Answer): unknown {
  try {
    return JSON.parse(answer.body);
  } catch {
    return null;
  }
}
