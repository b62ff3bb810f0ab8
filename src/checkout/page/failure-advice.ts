/**
 * What the hosted page tells a customer whose attempt failed: what happened and what to do next,
 * in plain words, from the provider's failure code (src/payments/provider.ts). The merchant-facing
 * `failure_reason` (with codes such as `DECLINED`) is never shown here. A code a connector adds
 * before it has words here gets the general advice of its channel.
 */
import type { Charge } from '../../core/charge-repository.ts';
import type { FailureCode } from '../../connectors/provider.ts';
import { OPERATOR_NAMES } from '../../shared/phone.ts';

export interface Advice {
  /** What happened, as a sentence without its full stop: `Your card was declined`. */
  happened: string;
  /** What to do about it, when another try is possible: `try another card or pay with mobile money`. */
  next: string;
}

const CARD_ADVICE: Partial<Record<FailureCode, Advice>> = {
  declined: { happened: 'Your card was declined', next: 'try another card or pay with mobile money' },
  insufficient_funds: { happened: 'Not enough money on the card', next: 'try another card or pay with mobile money' },
  timed_out: { happened: 'Your bank did not answer in time', next: 'try again, or use another card' },
  issuer_error: {
    happened: 'Your bank could not take the payment just now',
    next: 'try again in a moment, or use another card',
  },
  wrong_otp: { happened: 'The one-time code was not right', next: 'try again and enter the code your bank sent you' },
  limit_exceeded: {
    happened: 'This payment is over your card’s limit',
    next: 'try another card or pay with mobile money',
  },
  superseded: {
    happened: 'This card payment gave way to another payment you started',
    next: 'finish that one, or try again',
  },
};
const CARD_GENERAL: Advice = {
  happened: 'The card payment did not go through',
  next: 'try again, or use another card or mobile money',
};

const MOBILE_ADVICE: Partial<Record<FailureCode, Advice>> = {
  insufficient_funds: { happened: 'Not enough money in the wallet', next: 'top up or use another number' },
  wrong_pin: { happened: 'The PIN was wrong', next: 'try again and enter your mobile money PIN on your phone' },
  rejected_by_customer: { happened: 'The payment was declined on the phone', next: 'try again if that was a mistake' },
  timed_out: { happened: 'The payment was not approved in time', next: 'try again and approve it on your phone' },
  declined: { happened: 'The payment was declined', next: 'try again, or use another number' },
  limit_exceeded: { happened: 'This payment is over the wallet’s limit', next: 'use another number or pay by card' },
};
const MOBILE_GENERAL: Advice = {
  happened: 'The mobile money payment did not go through',
  next: 'try again, or use another number',
};

const BANK_TRANSFER_ADVICE: Partial<Record<FailureCode, Advice>> = {
  wrong_amount: {
    happened: 'The transfer was not the exact amount, so your bank was sent it back',
    next: 'get a new account and transfer exactly the amount shown, or pay another way',
  },
  expired: { happened: 'The account expired before a transfer arrived', next: 'get a new account, or pay another way' },
};
const BANK_TRANSFER_GENERAL: Advice = {
  happened: 'The bank transfer did not go through',
  next: 'try again, or pay another way',
};

/** The customer's advice for a failed attempt. */
export function failureAdvice(charge: Pick<Charge, 'channel' | 'operator' | 'failure_code'>): Advice {
  const code = charge.failure_code as FailureCode | null;
  if (charge.channel === 'card') return (code && CARD_ADVICE[code]) || CARD_GENERAL;
  if (charge.channel === 'bank_transfer') return (code && BANK_TRANSFER_ADVICE[code]) || BANK_TRANSFER_GENERAL;
  if (code === 'issuer_error') {
    const operator = charge.operator ? OPERATOR_NAMES[charge.operator] : 'The mobile money service';
    return {
      happened: `${operator} could not take the payment just now`,
      next: 'try again in a moment, or use another number',
    };
  }
  return (code && MOBILE_ADVICE[code]) || MOBILE_GENERAL;
}

/** `Your card was declined — try another card or pay with mobile money.` */
export function adviceSentence(advice: Advice): string {
  return `${advice.happened} — ${advice.next}.`;
}

/** `2 tries left`, `Last try`: how many more failed attempts the session takes. */
export function triesLeftText(triesLeft: number): string {
  return triesLeft === 1 ? 'Last try' : `${triesLeft} tries left`;
}
