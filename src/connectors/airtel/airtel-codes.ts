import type { FailureCode } from '../provider.ts';

/**
 * What one of Airtel's codes says about a request: its `status.response_code` (DP008… for
 * collections and refunds, DP009… for disbursements) or, when it has none, its `status.result_code`
 * (ESB…, or ROUTER… from Airtel's gateway in front of the products).
 *
 * - `ok`: the request, or the transaction, went through. A collection is still only final on `TS`.
 * - `pending`: Airtel itself does not know yet, or says to enquire.
 * - `failed`: Airtel says the transaction failed; `reason` is what merchants read.
 * - `refused`: refused before Airtel took the transaction, so no money can have moved.
 */
export type CodeMeaning =
  | { outcome: 'ok' }
  | { outcome: 'pending'; note: string }
  | { outcome: 'failed'; code: FailureCode; reason: string }
  | { outcome: 'refused'; reason: string };

type Entry = ['ok'] | ['pending', string] | ['failed', FailureCode, string] | ['refused', string];

/**
 * Every code of Airtel's published lists: collection (USSD push) DP008…, disbursement DP009…,
 * product ESB…, gateway ROUTER…. Codes Airtel documents as "ambiguous, do an enquiry" are pending,
 * as are "not found" (see `sync` in airtel-connector.ts) and "duplicate id", which means an earlier
 * request under this id reached Airtel: it is that one's outcome we are waiting for.
 */
const CODES: Record<string, Entry> = {
  DP00800001000: ['pending', 'ambiguous: Airtel is still processing'],
  DP00800001001: ['ok'],
  DP00800001002: ['failed', 'wrong_pin', 'wrong PIN'],
  DP00800001003: ['failed', 'limit_exceeded', "over the wallet's transaction limit"],
  DP00800001004: ['failed', 'limit_exceeded', 'amount below the minimum allowed'],
  DP00800001005: ['failed', 'timed_out', 'the PIN was not entered'],
  DP00800001006: ['pending', 'in process: waiting for the customer'],
  DP00800001007: ['failed', 'insufficient_funds', 'not enough money in the wallet'],
  DP00800001008: ['failed', 'declined', 'the payment was refused'],
  DP00800001009: ['failed', 'declined', 'do not honour'],
  DP00800001010: ['failed', 'declined', 'this wallet may not make the payment (barred or not registered)'],
  DP00800001024: ['failed', 'timed_out', 'the payment was not approved in time'],
  DP00800001025: ['pending', 'Airtel has no transaction under this id'],
  DP00800001026: ['refused', 'the request signature did not match'],
  DP00800001029: ['failed', 'timed_out', 'the payment request expired'],

  DP00900001000: ['pending', 'ambiguous: Airtel is still processing'],
  DP00900001001: ['ok'],
  DP00900001003: ['failed', 'limit_exceeded', 'the daily transaction limit was reached'],
  DP00900001004: ['failed', 'limit_exceeded', 'amount outside the allowed range'],
  DP00900001005: ['failed', 'declined', 'the transfer failed'],
  DP00900001006: ['pending', 'in process'],
  DP00900001007: ['failed', 'insufficient_funds', 'not enough money in the disbursement wallet'],
  DP00900001009: ['failed', 'declined', 'the initiator of the transfer is invalid'],
  DP00900001010: ['failed', 'declined', 'the payer is not allowed'],
  DP00900001011: ['pending', 'a transaction under this id already exists'],
  DP00900001012: ['failed', 'declined', 'the number is not a valid Airtel Money wallet'],
  DP00900001013: ['failed', 'declined', 'the transfer was refused'],
  DP00900001014: ['pending', 'timed out inside Airtel: outcome unknown'],
  DP00900001015: ['pending', 'Airtel has no transaction under this id'],
  DP00900001016: ['refused', 'the request signature did not match'],
  DP00900001017: ['pending', 'a transaction under this id already exists'],
  DP00900001018: ['refused', 'forbidden'],

  ESB000001: ['pending', 'ambiguous: something went wrong inside Airtel'],
  ESB000004: ['pending', 'ambiguous: error while initiating the payment'],
  ESB000008: ['pending', 'ambiguous: field validation error'],
  ESB000010: ['ok'],
  ESB000011: ['failed', 'declined', 'the request failed'],
  ESB000014: ['pending', 'ambiguous: error while fetching the transaction status'],
  ESB000033: ['refused', 'invalid number length'],
  ESB000034: ['refused', 'invalid country'],
  ESB000035: ['refused', 'invalid currency'],
  ESB000036: ['refused', 'invalid number'],
  ESB000039: ['refused', 'this account is not configured for the country'],
  ESB000041: ['pending', 'a transaction under this id already exists'],
  ESB000045: ['pending', 'Airtel has no transaction under this id'],

  ROUTER001: ['refused', 'the wallet is not configured'],
  ROUTER003: ['refused', 'mandatory parameters are missing'],
  ROUTER005: ['refused', 'the country route is not configured'],
  ROUTER006: ['refused', 'invalid country'],
  ROUTER007: ['refused', 'not authorised for this country'],
  ROUTER112: ['refused', 'invalid currency'],
  ROUTER114: ['refused', 'the disbursement PIN could not be validated'],
  ROUTER115: ['refused', 'the disbursement PIN is incorrect'],
  ROUTER116: ['refused', 'the disbursement PIN is not encrypted as Airtel expects'],
  ROUTER117: ['pending', 'ambiguous: error while generating the response'],
  ROUTER119: ['refused', 'invalid or missing currency'],
};

/** Every code with a meaning, for tests that walk the whole list. */
export const AIRTEL_CODES: readonly string[] = Object.keys(CODES);

/** What `code` means, with the customer-facing reason worded as merchants read it; undefined when Airtel never documented it. */
export function codeMeaning(code: string): CodeMeaning | undefined {
  const entry = CODES[code];
  if (!entry) return undefined;
  switch (entry[0]) {
    case 'ok':
      return { outcome: 'ok' };
    case 'pending':
      return { outcome: 'pending', note: `${entry[1]} (${code})` };
    case 'failed':
      return { outcome: 'failed', code: entry[1], reason: airtelReason(entry[2], code) };
    case 'refused':
      return { outcome: 'refused', reason: airtelReason(entry[1], code) };
  }
}

/** `Airtel Money: wrong PIN (DP00800001002).` */
export function airtelReason(text: string, code: string | null): string {
  return code ? `Airtel Money: ${text} (${code}).` : `Airtel Money: ${text}.`;
}
