import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Mode } from '../shared/ids.ts';
import {
  balanceOf,
  collectionsToSettle,
  creditedTwice,
  driftedAccounts,
  feesReturnedBeyondFee,
  InsufficientFunds,
  lockedBalances,
  merchantRefundsMovedWrongly,
  paidSessionsNotCreditedOnce,
  payoutsMovedWrongly,
  post,
  postingsOf,
  refundFeesPaidWrongly,
  refundsPaidOutWrongly,
  refundTotalsWrong,
  SYSTEM,
  unbalancedTransactions,
  uncountedSuccessesNotHeldOnce,
  type AccountKey,
  type Posting,
} from './ledger-repository.ts';

type Db = Kysely<DB>;

export interface Movement {
  merchantId: string;
  mode: Mode;
  currency: string;
  amountMinor: number;
  feeMinor: number;
  /** The charge, payout or refund it belongs to. */
  reference: string;
}

const merchantAccount = (m: Movement, kind: 'collection' | 'main' | 'payout_reserve' | 'refunds_due'): AccountKey => ({
  owner: m.merchantId,
  mode: m.mode,
  currency: m.currency,
  kind,
});
const systemAccount = (m: Movement, kind: 'fees' | 'external'): AccountKey => ({
  owner: SYSTEM,
  mode: m.mode,
  currency: m.currency,
  kind,
});

/**
 * A successful collection: the money comes in from outside, the merchant gets it net of the fee,
 * in its collection balance until settlement moves it to main, or straight in its main balance
 * when `settledAtOnce` (test mode with TEST_SETTLEMENT=immediate: the settlement is this posting).
 */
export function creditCollection(
  trx: Db,
  m: Movement,
  now: number,
  { settledAtOnce = false }: { settledAtOnce?: boolean } = {},
): Promise<void> {
  return post(
    trx,
    { mode: m.mode, kind: 'collection', reference: m.reference },
    [
      { account: systemAccount(m, 'external'), amountMinor: -m.amountMinor },
      { account: merchantAccount(m, settledAtOnce ? 'main' : 'collection'), amountMinor: m.amountMinor - m.feeMinor },
      { account: systemAccount(m, 'fees'), amountMinor: m.feeMinor },
    ],
    now,
  );
}

/** Sets a payout's amount and fee aside from the main balance; InsufficientFunds when it cannot cover them. */
export function reservePayout(trx: Db, m: Movement, now: number): Promise<void> {
  const total = m.amountMinor + m.feeMinor;
  return post(
    trx,
    { mode: m.mode, kind: 'payout_reserve', reference: m.reference },
    [
      { account: merchantAccount(m, 'main'), amountMinor: -total },
      { account: merchantAccount(m, 'payout_reserve'), amountMinor: total },
    ],
    now,
  );
}

/** A payout that went out: the reservation pays the recipient and the fee. */
export function completePayout(trx: Db, m: Movement, now: number): Promise<void> {
  return post(
    trx,
    { mode: m.mode, kind: 'payout_complete', reference: m.reference },
    [
      { account: merchantAccount(m, 'payout_reserve'), amountMinor: -(m.amountMinor + m.feeMinor) },
      { account: systemAccount(m, 'external'), amountMinor: m.amountMinor },
      { account: systemAccount(m, 'fees'), amountMinor: m.feeMinor },
    ],
    now,
  );
}

/** A payout that failed: the reservation goes back to the main balance. */
export function releasePayout(trx: Db, m: Movement, now: number): Promise<void> {
  const total = m.amountMinor + m.feeMinor;
  return post(
    trx,
    { mode: m.mode, kind: 'payout_release', reference: m.reference },
    [
      { account: merchantAccount(m, 'payout_reserve'), amountMinor: -total },
      { account: merchantAccount(m, 'main'), amountMinor: total },
    ],
    now,
  );
}

/**
 * A success its checkout session could not count (the session had ended, or the customer had
 * moved on to another attempt): the money came in, but it is the customer's, not the merchant's.
 * It is held until the refund gives it back; the merchant's balances never see it.
 */
export function holdForRefund(trx: Db, m: Movement, now: number): Promise<void> {
  return post(
    trx,
    { mode: m.mode, kind: 'refund_hold', reference: m.reference },
    [
      { account: systemAccount(m, 'external'), amountMinor: -m.amountMinor },
      { account: merchantAccount(m, 'refunds_due'), amountMinor: m.amountMinor },
    ],
    now,
  );
}

/**
 * What a merchant refund takes from the merchant's balance: its amount less the payment fee's
 * share it gives back (`feeMinor`, REFUND_RETURNS_FEE), which the fees account pays toward the
 * refund when it goes out.
 */
export const refundFromBalance = (m: Pick<Movement, 'amountMinor' | 'feeMinor'>): number => m.amountMinor - m.feeMinor;

const refundBalanceKeys = (m: Movement) => [
  merchantAccount(m, 'collection'),
  merchantAccount(m, 'main'),
  merchantAccount(m, 'refunds_due'),
];

/**
 * What the merchant's balance can give a refund (collection and main together), read locked like
 * `reserveRefund` reads it, so that a decision made on it (to reserve the refund now, or to let it
 * wait) holds until the transaction ends: a payout, another refund or a settler releasing a
 * waiting refund of the same merchant decides after this one's answer.
 */
export async function refundableBalance(trx: Db, m: Movement, now: number): Promise<number> {
  const [collection, main] = await lockedBalances(trx, refundBalanceKeys(m), now);
  return collection! + main!;
}

/**
 * A refund the merchant asked for: what it takes from the balance (`refundFromBalance`) leaves
 * the merchant's balance for `refunds_due`, collection first, then main (merchants refund right
 * after a payment, before settlement moves it to main). InsufficientFunds when the two together
 * cannot cover it. The balances are read locked, so a payout or another refund deciding at the
 * same moment waits for this one's answer.
 */
export async function reserveRefund(trx: Db, m: Movement, now: number): Promise<void> {
  const [collection, main] = await lockedBalances(trx, refundBalanceKeys(m), now);
  const needed = refundFromBalance(m);
  const { fromCollection, fromMain, covered } = refundSources(needed, {
    collectionMinor: collection!,
    mainMinor: main!,
  });
  if (!covered) throw new InsufficientFunds();
  const taken: Posting[] = [
    { account: merchantAccount(m, 'collection'), amountMinor: -fromCollection },
    { account: merchantAccount(m, 'main'), amountMinor: -fromMain },
  ];
  return post(
    trx,
    { mode: m.mode, kind: 'refund_reserve', reference: m.reference },
    [
      ...taken.filter((posting) => posting.amountMinor !== 0),
      { account: merchantAccount(m, 'refunds_due'), amountMinor: needed },
    ],
    now,
  );
}

/**
 * Where a merchant refund of `amountMinor` is taken from, given the balances: collection first,
 * then main, as `reserveRefund` takes it; `covered` is false when the two together cannot.
 * Pages that ask the merchant to confirm a refund show the same split.
 */
export function refundSources(
  amountMinor: number,
  balances: Balances,
): { fromCollection: number; fromMain: number; covered: boolean } {
  const fromCollection = Math.min(amountMinor, balances.collectionMinor);
  const fromMain = amountMinor - fromCollection;
  return { fromCollection, fromMain, covered: fromMain <= balances.mainMinor };
}

/** A merchant refund that failed: exactly what was reserved for it goes back to the accounts it came from. */
export async function releaseRefund(trx: Db, m: Pick<Movement, 'mode' | 'reference'>, now: number): Promise<void> {
  const reserved = await postingsOf(trx, 'refund_reserve', m.reference);
  return post(
    trx,
    { mode: m.mode, kind: 'refund_release', reference: m.reference },
    reserved.map((posting) => ({ account: posting.account, amountMinor: -posting.amountMinor })),
    now,
  );
}

/**
 * A refund that went out: the money held for it leaves for the customer, with the fee's share
 * the fees account gives back toward it (`feeMinor`; none for an uncounted success's).
 */
export function completeRefund(trx: Db, m: Movement, now: number): Promise<void> {
  const fee: Posting[] = m.feeMinor === 0 ? [] : [{ account: systemAccount(m, 'fees'), amountMinor: -m.feeMinor }];
  return post(
    trx,
    { mode: m.mode, kind: 'refund_complete', reference: m.reference },
    [
      { account: merchantAccount(m, 'refunds_due'), amountMinor: -refundFromBalance(m) },
      ...fee,
      { account: systemAccount(m, 'external'), amountMinor: m.amountMinor },
    ],
    now,
  );
}

export interface Balances {
  mainMinor: number;
  collectionMinor: number;
}

export async function merchantBalances(db: Db, merchantId: string, mode: Mode, currency: string): Promise<Balances> {
  const key = { owner: merchantId, mode, currency };
  const [mainMinor, collectionMinor] = await Promise.all([
    balanceOf(db, { ...key, kind: 'main' }),
    balanceOf(db, { ...key, kind: 'collection' }),
  ]);
  return { mainMinor, collectionMinor };
}

/**
 * Moves every merchant's collected money to its main balance (settlement), of one mode or of
 * both; with `merchantId`, only that merchant's (a test helper settles the caller's own). Safe to run from several processes at once: each move debits the collection account only
 * if it still holds the amount, so money moves once. Returns how many accounts were settled.
 */
export async function settleCollections(db: Db, now: number, mode?: Mode, merchantId?: string): Promise<number> {
  let settled = 0;
  for (const account of await collectionsToSettle(db, mode, merchantId)) {
    const m: Movement = {
      merchantId: account.owner,
      mode: account.mode,
      currency: account.currency,
      amountMinor: Number(account.balance_minor),
      feeMinor: 0,
      reference: '',
    };
    try {
      await db.transaction().execute((trx) =>
        post(
          trx,
          { mode: m.mode, kind: 'settlement', reference: null },
          [
            { account: merchantAccount(m, 'collection'), amountMinor: -m.amountMinor },
            { account: merchantAccount(m, 'main'), amountMinor: m.amountMinor },
          ],
          now,
        ),
      );
      settled += 1;
    } catch (error) {
      if (!(error instanceof InsufficientFunds)) throw error;
    }
  }
  return settled;
}

/**
 * What is wrong with the ledger, in words; empty when every invariant holds: every transaction
 * balances, every running balance matches its entries, no charge is credited twice, every paid
 * checkout session has exactly one credited payment, every success a session could not count is
 * held for its refund once, every refund's money left once if it succeeded, never otherwise,
 * every merchant refund was reserved from the balance once for what it takes from it (none while
 * it waits for the balance) and given back only if it failed, every refund that went out took
 * exactly its fee share from the fees account and no payment got back more than its fee, every
 * charge's refunded total is what its refunds add up to (only successful charges having any), and
 * every payout's money was reserved once, then paid out once if it succeeded or released once if
 * it failed.
 */
export async function checkLedger(db: Db): Promise<string[]> {
  const [unbalanced, drifted, twice, uncredited, unheld, refunds, reserves, feesPaid, feesBeyond, totals, payouts] =
    await Promise.all([
      unbalancedTransactions(db),
      driftedAccounts(db),
      creditedTwice(db),
      paidSessionsNotCreditedOnce(db),
      uncountedSuccessesNotHeldOnce(db),
      refundsPaidOutWrongly(db),
      merchantRefundsMovedWrongly(db),
      refundFeesPaidWrongly(db),
      feesReturnedBeyondFee(db),
      refundTotalsWrong(db),
      payoutsMovedWrongly(db),
    ]);
  return [
    ...unbalanced.map((row) => `transaction ${row.transaction_id} sums to ${Number(row.total)}, not 0`),
    ...drifted.map(
      (row) => `account ${row.id} has balance ${row.balance_minor} but its entries sum to ${Number(row.entries_total)}`,
    ),
    ...twice.map((row) => `charge ${row.reference} was credited ${Number(row.credits)} times`),
    ...uncredited.map((row) => `paid session ${row.id} has ${Number(row.credits)} credited payments, not 1`),
    ...unheld.map(
      (row) => `uncounted successful charge ${row.id} was held for refund ${Number(row.holds)} times, not 1`,
    ),
    ...refunds.map((row) => `refund ${row.id} (${row.status}) paid out ${Number(row.payouts)} times`),
    ...reserves.map(
      (row) =>
        `merchant refund ${row.id} (${row.status}${row.pending_reason === null ? '' : ', waiting for the balance'}) reserved ${Number(row.reserves)} times (${Number(row.reserved)} in all) and released ${Number(row.releases)} times`,
    ),
    ...feesPaid.map(
      (row) =>
        `refund ${row.id} took ${Number(row.paid)} from the fees account, not its fee share of ${Number(row.fee_returned_minor)}`,
    ),
    ...feesBeyond.map(
      (row) => `charge ${row.id} had ${Number(row.returned)} of its fee of ${Number(row.fee_minor)} given back`,
    ),
    ...totals.map(
      (row) =>
        `charge ${row.id} (${row.status}) shows ${Number(row.refunded_minor)} refunded, but its refunds count ${Number(row.counted)}`,
    ),
    ...payouts.map(
      (row) =>
        `payout ${row.id} (${row.status}) was reserved ${Number(row.reserves)}, paid out ${Number(row.completes)} and released ${Number(row.releases)} times`,
    ),
  ];
}

export { InsufficientFunds };
