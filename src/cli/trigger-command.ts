import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { TEST_CARDS, TEST_MOBILE_NUMBERS, TEST_OTP } from '../connectors/sandbox/sandbox-provider.ts';
import { operatorByCode } from '../core/operators.ts';
import { landingUrl } from '../sandbox/sandbox-urls.ts';
import { noMorePositionals, parseArgs, stringOption, UsageError, type ParsedArgs } from './args.ts';
import { CustomerBrowser } from './customer-browser.ts';
import { print, printJson } from './output.ts';
import { askGateway, REMOTE_OPTIONS, remoteGateway, type Envelope, type RemoteGateway } from './remote-gateway.ts';

const USAGE = `usage: lipira trigger <event> [--amount N] [--currency C] [--url URL] [--api-key KEY] [--json]
  checkout.payment [--failed] [--meta KEY=VALUE]...   a checkout session paid on its page, as a customer pays it
  api.charge.payment [--method mobile_money|card|bank_transfer]
                                                       a direct charge, approved, confirmed or transferred to
  api.refund                                           a payment, then its refund
  api.payout                                           a payment, settled, then a payout to a wallet`;

const METHODS = ['mobile_money', 'card', 'bank_transfer'] as const;
type Method = (typeof METHODS)[number];

interface TriggerOptions {
  amount: number;
  currency: string;
  failed: boolean;
  method: Method;
  meta: Record<string, string>;
}

/** What a trigger made, printed whether or not its flow ended as expected. */
type Made = Record<string, string | number | null>;
type Data = Record<string, unknown>;

/** How long a flow waits for the gateway's workers (the sandbox's approval delay, a refund's, a settler round). */
const FLOW_WAIT_MS = 60_000;

const CUSTOMER = { first_name: 'Test', last_name: 'Customer', email: 'customer@example.com' };
const [MOBILE_SUCCESS, MOBILE_FAILED] = TEST_MOBILE_NUMBERS;
const CARD_SUCCESS = TEST_CARDS[0];
const CARD_DECLINED = TEST_CARDS[2];

/**
 * `lipira trigger <event>`: makes the gateway emit one of its webhook events for real, over its
 * HTTP API and pages (this machine's gateway or another's): a payment is paid as its customer
 * pays it, so the webhook, receipts and ledger follow as they would. Prints what it created and
 * exits 1 when the flow does not end as it should (a payment that should succeed did not).
 */
export async function triggerCommand(argv: string[], config: Config): Promise<number> {
  const [event, ...rest] = argv;
  const flow = event !== undefined && Object.hasOwn(FLOWS, event) ? FLOWS[event] : undefined;
  if (!flow) throw new UsageError(USAGE);
  const { meta, others } = takeMeta(rest);
  const args = parseArgs(others, [...REMOTE_OPTIONS, 'amount', 'currency', 'method'], ['failed', 'json']);
  noMorePositionals(args, 0);
  const options = triggerOptions(args, meta);
  if (options.failed && event !== 'checkout.payment') throw new UsageError('--failed goes with checkout.payment');
  if (Object.keys(meta).length > 0 && event !== 'checkout.payment')
    throw new UsageError('--meta goes with checkout.payment: direct charges carry no meta');
  if (args.options.has('method') && event !== 'api.charge.payment')
    throw new UsageError('--method goes with api.charge.payment');
  const gateway = remoteGateway(args, config);
  const made: Made = { event: event! };
  try {
    await flow(gateway, options, made);
  } finally {
    if (args.options.has('json')) printJson(made);
    else {
      const width = Math.max(...Object.keys(made).map((name) => name.length));
      print(
        Object.entries(made)
          .map(([name, value]) => `${name.padEnd(width)}  ${String(value)}`)
          .join('\n'),
      );
    }
  }
  return 0;
}

function triggerOptions(args: ParsedArgs, meta: Record<string, string>): TriggerOptions {
  const amount = stringOption(args, 'amount') ?? '1000';
  if (!/^[1-9]\d{0,9}$/.test(amount)) throw new UsageError(`--amount must be a whole amount (got "${amount}")`);
  const method = stringOption(args, 'method') ?? 'mobile_money';
  if (!(METHODS as readonly string[]).includes(method))
    throw new UsageError(`--method must be one of ${METHODS.join(', ')} (got "${method}")`);
  return {
    amount: Number(amount),
    currency: (stringOption(args, 'currency') ?? 'MWK').toUpperCase(),
    failed: args.options.has('failed'),
    method: method as Method,
    meta,
  };
}

/** `--meta KEY=VALUE` may be given again and again, which the one-value options cannot. */
function takeMeta(argv: string[]): { meta: Record<string, string>; others: string[] } {
  const meta: Record<string, string> = {};
  const others: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg !== '--meta' && !arg.startsWith('--meta=')) {
      others.push(arg);
      continue;
    }
    const pair = arg === '--meta' ? argv[++i] : arg.slice('--meta='.length);
    const at = pair?.indexOf('=') ?? -1;
    if (pair === undefined || at < 1) throw new UsageError('--meta takes KEY=VALUE');
    meta[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { meta, others };
}

type Flow = (gateway: RemoteGateway, options: TriggerOptions, made: Made) => Promise<void>;

const FLOWS: Record<string, Flow> = {
  'checkout.payment': checkoutPayment,
  'api.charge.payment': async (gateway, options, made) => {
    const pay = { mobile_money: mobileMoneyCharge, card: cardCharge, bank_transfer: bankTransferCharge }[
      options.method
    ];
    await pay(gateway, options, made);
  },
  'api.refund': async (gateway, options, made) => {
    await mobileMoneyCharge(gateway, options, made);
    const { data } = await post(gateway, '/refunds', { charge_id: made.charge_id, currency: options.currency });
    made.refund_id = String(data.refund_id);
    made.refund_status = String(data.status);
    const ended = await until('the refund to end', async () => {
      const refund = (await askGateway<Envelope<Data>>(gateway, 'GET', `/refunds/${made.refund_id}`)).data;
      return refund.status === 'pending' ? null : refund;
    });
    expect((made.refund_status = String(ended.status)), 'success', 'refund');
  },
  'api.payout': async (gateway, options, made) => {
    // Paid twice the payout, so that the main balance covers the payout and its fee, once settled.
    const payment: Made = {};
    try {
      await mobileMoneyCharge(gateway, { ...options, amount: options.amount * 2 }, payment);
    } finally {
      made.payment_charge_id = payment.charge_id ?? null;
    }
    await post(gateway, '/test-helpers/settlements/run');
    const chargeId = reference();
    made.charge_id = chargeId;
    const { data } = await post(gateway, '/mobile-money/payouts/initialize', {
      mobile: MOBILE_SUCCESS.number,
      mobile_money_operator_ref_id: operatorByCode('airtel').ref_id,
      amount: options.amount,
      currency: options.currency,
      charge_id: chargeId,
      ...CUSTOMER,
    });
    expect((made.status = String(data.status)), 'success', 'payout');
  },
};

/** A checkout session, paid on its hosted page by mobile money (MWK) or card (any other currency), as a customer pays. */
async function checkoutPayment(gateway: RemoteGateway, options: TriggerOptions, made: Made): Promise<void> {
  const txRef = reference();
  made.tx_ref = txRef;
  const { data } = await post(gateway, '/payment', {
    tx_ref: txRef,
    amount: options.amount,
    currency: options.currency,
    ...CUSTOMER,
    callback_url: landingUrl(gateway.url),
    return_url: landingUrl(gateway.url),
    customization: { title: 'lipira trigger' },
    meta: Object.keys(options.meta).length > 0 ? options.meta : undefined,
  });
  const page = new URL(String(data.checkout_url));
  made.checkout_url = page.toString();
  const browser = new CustomerBrowser(page.origin);
  const opened = await browser.get(page.pathname);
  if (opened.status !== 200) throw new Error(`the checkout page answered ${opened.status}`);
  const byCard = options.currency !== 'MWK';
  const attempt = byCard
    ? await browser.post(`${page.pathname}/pay/card`, {
        card_number: (options.failed ? CARD_DECLINED : CARD_SUCCESS).number,
        expiry: '12/40',
        cvv: '123',
      })
    : await browser.post(`${page.pathname}/pay/mobile-money`, {
        mobile: (options.failed ? MOBILE_FAILED : MOBILE_SUCCESS).number,
        operator: '',
      });
  if (attempt.status !== 303 || !attempt.location)
    throw new Error(`the checkout page refused the payment (${attempt.status})`);
  const attemptPath = attempt.location.pathname;
  made.charge_id = attemptPath.split('/').pop()!;
  if (byCard) await browser.post(`${attemptPath}/otp`, { otp: TEST_OTP });
  const ended = await until('the payment to end', async () => {
    const status = JSON.parse((await browser.get(`${attemptPath}/status`)).text) as {
      status: string;
      next_url: unknown;
    };
    return status.next_url ? status : null;
  });
  made.status = ended.status;
  expect(ended.status, options.failed ? 'failed' : 'success', 'payment');
  const verified = (await askGateway<Envelope<Data>>(gateway, 'GET', `/verify-payment/${txRef}`)).data;
  made.session_status = String(verified.status);
  // A failed attempt leaves the session open for another (docs/integrate/api-reference.md#attempts-and-endings).
  expect(made.session_status, options.failed ? 'pending' : 'success', 'checkout session');
}

/** A direct mobile money charge the customer approves on the phone (the sandbox's delay). */
async function mobileMoneyCharge(gateway: RemoteGateway, options: TriggerOptions, made: Made): Promise<void> {
  const chargeId = reference();
  made.charge_id = chargeId;
  await post(gateway, '/mobile-money/payments/initialize', {
    mobile: MOBILE_SUCCESS.number,
    mobile_money_operator_ref_id: operatorByCode('airtel').ref_id,
    amount: options.amount,
    currency: options.currency,
    charge_id: chargeId,
    ...CUSTOMER,
  });
  const ended = await until('the customer to approve', async () => {
    const { data } = await askGateway<Envelope<Data>>(gateway, 'GET', `/mobile-money/payments/${chargeId}/verify`);
    return data.status === 'pending' ? null : data;
  });
  expect((made.status = String(ended.status)), 'success', 'payment');
}

/** A direct card charge whose customer types the one-time code on the 3-D Secure page. */
async function cardCharge(gateway: RemoteGateway, options: TriggerOptions, made: Made): Promise<void> {
  const chargeId = reference();
  made.charge_id = chargeId;
  const started = await askGateway<Data>(gateway, 'POST', '/charge-card/payments', {
    card_number: CARD_SUCCESS.number,
    expiry: '12/40',
    cvv: '123',
    cardholder_name: `${CUSTOMER.first_name} ${CUSTOMER.last_name}`,
    amount: options.amount,
    currency: options.currency,
    charge_id: chargeId,
    redirect_url: landingUrl(gateway.url),
    email: CUSTOMER.email,
  });
  const link = new URL(String(started['3ds_auth_link']));
  const browser = new CustomerBrowser(link.origin);
  const page = await browser.get(link.pathname + link.search);
  if (page.status !== 200) throw new Error(`the 3-D Secure page answered ${page.status}`);
  const confirmed = await browser.post(link.pathname + link.search, { otp: TEST_OTP });
  if (confirmed.status !== 303) throw new Error(`the 3-D Secure page did not take the code (${confirmed.status})`);
  const { data } = await askGateway<Envelope<Data>>(gateway, 'GET', `/charge-card/verify/${chargeId}`);
  expect((made.status = String(data.status)), 'success', 'payment');
}

/** A bank transfer charge, and the customer's transfer of the exact amount (the receive test helper). */
async function bankTransferCharge(gateway: RemoteGateway, options: TriggerOptions, made: Made): Promise<void> {
  const chargeId = reference();
  made.charge_id = chargeId;
  const { data } = await post(gateway, '/direct-charge/payments/initialize', {
    payment_method: 'mobile_bank_transfer',
    amount: options.amount,
    currency: options.currency,
    charge_id: chargeId,
    ...CUSTOMER,
  });
  const account = data.payment_account_details as Data;
  made.account = `${String(account.account_number)} at ${String(account.bank_name)}`;
  await post(gateway, `/test-helpers/bank-transfers/${chargeId}/receive`, { amount: options.amount });
  const details = await askGateway<Envelope<{ transaction: Data }>>(
    gateway,
    'GET',
    `/direct-charge/transactions/${chargeId}/details`,
  );
  expect((made.status = String(details.data.transaction.status)), 'success', 'payment');
}

const post = (gateway: RemoteGateway, path: string, body?: unknown) =>
  askGateway<Envelope<Data>>(gateway, 'POST', path, body);

/** A fresh tx_ref or charge_id, telling in the merchant's records where it came from. */
const reference = () => `trigger-${randomUUID().slice(0, 13)}`;

function expect(actual: string, expected: string, what: string): void {
  if (actual !== expected) throw new Error(`the ${what} ended ${actual}, not ${expected}`);
}

/** Asks `probe` until it answers, for up to `FLOW_WAIT_MS`. */
async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  for (const deadline = Date.now() + FLOW_WAIT_MS; Date.now() < deadline; await sleep(250)) {
    const value = await probe();
    if (value !== null) return value;
  }
  throw new Error(`timed out after ${FLOW_WAIT_MS / 1000} s waiting for ${what}`);
}
