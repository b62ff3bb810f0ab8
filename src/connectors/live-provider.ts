import type { Clock } from '../shared/clock.ts';
import type { CollectMethod, Connector, PendingStep, RefundedCharge, Step } from './connector.ts';
import type { ChargeForProvider, Outcome, PaymentProvider, Pending } from './provider.ts';
import { OPERATOR_NAMES, parseMalawiMobile } from '../shared/phone.ts';

/** Why a live flow is refused before anything is sent: no route serves it, whatever other routes exist. */
const notConnected = (what: string) =>
  `Live payments are not available yet: this gateway's operator has not connected ${what}. No money was moved.`;

/** The live channels, as `LIVE_ROUTES` names them: mobile money by operator, cards, bank transfer and bank payouts, payouts to wallets. */
export const LIVE_CHANNELS = ['airtel', 'tnm', 'card', 'bank', 'payout'] as const;
export type LiveChannel = (typeof LIVE_CHANNELS)[number];

export interface LiveSettings {
  /** The connector serving each channel; a channel without one is refused before anything is recorded. */
  routes: Partial<Record<LiveChannel, Connector>>;
  /** Asking again about a pending flow: first after `firstAskMs`, then twice as long each time up to `maxAskMs`. */
  firstAskMs: number;
  maxAskMs: number;
  /** A flow with no final answer for this long is flagged for review (and still asked about). */
  reviewAfterMs: number;
  /** When a flow started and when to ask again are business time. */
  clock: Clock;
}

type Flow = 'collect' | 'refund' | 'payout';

/**
 * What the live provider keeps of a charge, refund or payout between asks (`provider_state`):
 * which connector has it, the operator's id once known, when it started and how often it was
 * asked; `final` when the connector's first answer was already final; `redirectUrl`, the
 * acquirer's 3-D Secure page a card charge waits for the customer at; `payer`, the full number
 * (`265…`) a mobile money charge was collected from.
 */
interface LiveState {
  connector: string;
  flow: Flow;
  operatorId: string | null;
  startedAt: number;
  asks: number;
  final?: Outcome;
  redirectUrl?: string;
  /**
   * Kept here and nowhere else (the charge's `mobile` column is masked, and this state is shown
   * to no one): a refund of part of the payment goes back to this number when its connector can
   * only refund whole payments (Airtel Money, docs/operate/connectors.md).
   */
  payer?: string;
}

/**
 * Live keys, through the connector `LIVE_ROUTES` gives each channel. The rules that keep money
 * safe live here, once for every connector: a flow is started once (the payment services record
 * it first, and only `sync` is ever repeated), an unknown answer keeps it pending and is asked
 * about again with backoff, and one that stays unknown past `reviewAfterMs` is flagged for review.
 */
export function liveProvider(settings: LiveSettings): PaymentProvider {
  const { routes, clock } = settings;
  const connectorNamed = (name: string) => Object.values(routes).find((connector) => connector.name === name);

  /** The next ask of a flow still pending: a new state, when, and whether a person should look now. */
  const stillPending = (state: LiveState, step: PendingStep | { note: string }, now: number): Pending => {
    const asks = state.asks + 1;
    const next: LiveState = {
      ...state,
      asks,
      operatorId: ('operatorId' in step ? step.operatorId : null) ?? state.operatorId,
    };
    const waited = now - state.startedAt;
    const review =
      waited >= settings.reviewAfterMs
        ? `no final answer from ${state.connector} after ${minutes(waited)} (${step.note})`
        : null;
    return {
      status: 'pending',
      providerState: JSON.stringify(next),
      checkAt: now + Math.min(settings.firstAskMs * 2 ** Math.min(asks, 30), settings.maxAskMs),
      review,
    };
  };

  /** A connector's answer to a start, as the state to keep and when to ask first (at once when it was already final). */
  const started = (state: LiveState, step: Exclude<Step, { status: 'refused' }>, now: number) => {
    const final = outcomeOf(step);
    const redirectUrl = step.status === 'pending' ? step.redirectUrl : undefined;
    const kept: LiveState = {
      ...state,
      operatorId: ('operatorId' in step ? step.operatorId : null) ?? null,
      ...(final ? { final } : {}),
      ...(redirectUrl ? { redirectUrl } : {}),
    };
    return { providerState: JSON.stringify(kept), checkAt: final ? now : now + settings.firstAskMs };
  };

  /** Asks the connector that has a flow about it (`ask`, given the operator's id once known), and says what to record. */
  const sync = async (
    state: LiveState,
    now: number,
    ask: (connector: Connector, operatorId: string | null) => Promise<Step>,
  ): Promise<Outcome | Pending> => {
    if (state.final) return state.final;
    const connector = connectorNamed(state.connector);
    if (!connector)
      return stillPending(state, { note: `the ${state.connector} connector is no longer in LIVE_ROUTES` }, now);
    const step = await answerOf(() => ask(connector, state.operatorId));
    if (step.status === 'pending') return stillPending(state, step, now);
    if (step.status === 'refused') return stillPending(state, { note: `the enquiry was refused: ${step.reason}` }, now);
    return finalOf(step);
  };

  /** The state of a charge, or, for one recorded whose start was never answered (a crash in between), what its route says. */
  const stateOf = (charge: ChargeForProvider): LiveState | null => {
    const kept = parsed(charge.provider_state);
    if (kept) return kept;
    const connector = routes[channelOf(charge)];
    return connector
      ? {
          connector: connector.name,
          flow: charge.kind === 'payout' ? 'payout' : 'collect',
          operatorId: null,
          startedAt: charge.created_at,
          asks: 0,
        }
      : null;
  };

  return {
    async startMobileMoney({ reference, mobile, amountMinor, currency }) {
      const connector = routes[mobile.operator];
      if (!connector) return { status: 'refused', reason: notConnected(OPERATOR_NAMES[mobile.operator]) };
      const now = clock.now();
      const step = await answerOf(() =>
        connector.collect({ reference, amountMinor, currency, method: 'mobile_money', mobile }),
      );
      if (step.status === 'refused') return { status: 'refused', reason: step.reason };
      const state = { ...newState(connector, 'collect', now), payer: mobile.msisdn };
      return { status: 'started', nextAction: 'approve', ...started(state, step, now) };
    },

    // The customer confirms a live card on the acquirer's own 3-D Secure page, which sends them back to `returnUrl`.
    async startCard({ reference, card, cvv, cardholderName, amountMinor, currency, returnUrl }) {
      const connector = routes.card;
      if (!connector) return { status: 'refused', reason: notConnected('a card acquirer') };
      const now = clock.now();
      const step = await answerOf(() =>
        connector.collect({
          reference,
          amountMinor,
          currency,
          method: 'card',
          card: { ...card, cvv },
          cardholderName,
          returnUrl,
        }),
      );
      if (step.status === 'refused') return { status: 'refused', reason: step.reason };
      return { status: 'started', nextAction: 'redirect', ...started(newState(connector, 'collect', now), step, now) };
    },

    customerRedirect: (charge) => parsed(charge.provider_state)?.redirectUrl ?? null,

    // A live card's code is typed on its acquirer's page, never on ours: no code is ever sent from here.
    confirmOtp: async () => ({
      status: 'failed',
      reason: "A live card's code is typed on its acquirer's own page, never here. No money was moved.",
    }),

    async startBankTransfer({ reference, amountMinor, currency, accountName, expiresAt }) {
      const connector = routes.bank;
      if (!connector) return { status: 'refused', reason: notConnected('a bank for transfers') };
      const now = clock.now();
      const step = await answerOf(() =>
        connector.collect({ reference, amountMinor, currency, method: 'bank_transfer', accountName, expiresAt }),
      );
      if (step.status === 'refused') return { status: 'refused', reason: step.reason };
      if (step.status !== 'pending' || !step.account)
        return { status: 'refused', reason: 'The bank did not open an account for this payment: please try again.' };
      return { status: 'started', account: step.account, ...started(newState(connector, 'collect', now), step, now) };
    },

    async check(charge, now) {
      const state = stateOf(charge);
      if (!state) return null;
      return sync(state, now, (connector, operatorId) => {
        const request = { reference: charge.id, operatorId, method: methodOf(charge) };
        return state.flow === 'payout' ? connector.syncPayout(request) : connector.sync(request);
      });
    },

    connectorOf: (charge) => stateOf(charge)?.connector ?? null,

    async payout({ reference, mobile, amountMinor, currency }) {
      const connector = routes.payout;
      if (!connector) return { status: 'refused', reason: notConnected('a mobile money operator for payouts') };
      const now = clock.now();
      const step = await answerOf(() =>
        connector.payout({ reference, amountMinor, currency, method: 'mobile_money', mobile }),
      );
      if (step.status === 'refused') return { status: 'refused', reason: step.reason };
      return (
        outcomeOf(step) ?? {
          status: 'pending',
          ...started(newState(connector, 'payout', now), step, now),
          review: null,
        }
      );
    },

    async startBankPayout({ reference, recipient, amountMinor, currency }) {
      const connector = routes.bank;
      if (!connector) return { status: 'refused', reason: notConnected('a bank for payouts') };
      const now = clock.now();
      const step = await answerOf(() =>
        connector.payout({ reference, amountMinor, currency, method: 'bank', recipient }),
      );
      if (step.status === 'refused') return { status: 'refused', reason: step.reason };
      return { status: 'started', ...started(newState(connector, 'payout', now), step, now) };
    },

    async refund({ reference, transId, amountMinor, currency, charge }) {
      const collected = stateOf(charge);
      const connector = collected && connectorNamed(collected.connector);
      if (!collected || !connector)
        return { status: 'refused', reason: notConnected('the service that took this payment') };
      const now = clock.now();
      const step = await answerOf(() =>
        connector.refund({
          reference,
          amountMinor,
          currency,
          // The operator's id for a paid charge is its `trans_id`, given with its success.
          charge: refundedCharge(charge, collected, transId ?? collected.operatorId),
        }),
      );
      if (step.status === 'refused' || step.status === 'failed') return { status: 'refused', reason: step.reason };
      return { status: 'started', ...started(newState(connector, 'refund', now), step, now) };
    },

    async syncRefund(refund, charge, now) {
      const collected = stateOf(charge);
      if (!collected) return null;
      // A refund whose hand-over was never answered (a crash in between) is asked about by its reference.
      const state = parsed(refund.provider_state) ?? {
        ...collected,
        flow: 'refund',
        operatorId: null,
        startedAt: now,
        asks: 0,
        final: undefined,
        payer: undefined,
      };
      return sync(state, now, (connector, operatorId) =>
        connector.syncRefund({
          reference: refund.id,
          operatorId,
          method: methodOf(charge),
          amountMinor: refund.amount_minor,
          charge: refundedCharge(charge, collected, collected.operatorId),
        }),
      );
    },
  };
}

/** The charge a refund gives back, as its connector is told of it. */
function refundedCharge(charge: ChargeForProvider, collected: LiveState, operatorId: string | null): RefundedCharge {
  return {
    reference: charge.id,
    operatorId,
    method: methodOf(charge),
    amountMinor: charge.amount_minor,
    payer: collected.payer === undefined ? null : parseMalawiMobile(collected.payer),
  };
}

const newState = (connector: Connector, flow: Flow, now: number): LiveState => ({
  connector: connector.name,
  flow,
  operatorId: null,
  startedAt: now,
  asks: 0,
});

/** Only an explicit success or failure ends a flow. */
const outcomeOf = (step: Step): Outcome | null =>
  step.status === 'success' || step.status === 'failed' ? finalOf(step) : null;

function finalOf(step: Extract<Step, { status: 'success' | 'failed' }>): Outcome {
  if (step.status === 'success')
    return step.payer
      ? { status: 'success', transId: step.operatorId, payer: step.payer }
      : { status: 'success', transId: step.operatorId };
  return step.code
    ? { status: 'failed', reason: step.reason, code: step.code }
    : { status: 'failed', reason: step.reason };
}

/** A connector that throws has not told us anything: the flow's outcome is unknown, not failed. */
async function answerOf(ask: () => Promise<Step>): Promise<Step> {
  try {
    return await ask();
  } catch (error) {
    return {
      status: 'pending',
      note: `the connector could not be asked (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

function parsed(state: string | null): LiveState | null {
  if (state === null) return null;
  try {
    const value = JSON.parse(state) as LiveState;
    return typeof value === 'object' && value !== null && typeof value.connector === 'string' ? value : null;
  } catch {
    return null;
  }
}

function channelOf(charge: ChargeForProvider): LiveChannel {
  if (charge.kind === 'payout') return charge.channel === 'bank' ? 'bank' : 'payout';
  if (charge.channel === 'mobile_money') return charge.operator ?? 'airtel';
  return charge.channel === 'card' ? 'card' : 'bank';
}

const methodOf = (charge: ChargeForProvider): CollectMethod =>
  charge.channel === 'card' ? 'card' : charge.channel === 'bank_transfer' ? 'bank_transfer' : 'mobile_money';

const minutes = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);
