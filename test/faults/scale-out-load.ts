import { currentBody } from '../helpers/fixtures.ts';
import { call } from '../helpers/gateway.ts';
import { Cluster, FAULT, type Slot } from './scale-out-cluster.ts';
import {
  CARD_DECLINED,
  CARD_PAYS,
  MOBILE_DECLINED,
  MOBILE_PAYS,
  pay,
  UnexpectedAnswer,
  type Instrument,
  type Paid,
} from './scale-out-customer.ts';

/** What the load generator knows about one session that was acknowledged with a 201. */
export interface SessionRecord {
  txRef: string;
  amount: number;
  pagePath: string;
  /** Payment flows started on it. */
  attempts: number;
  /** A paying instrument was submitted (or was about to be when a fault cut the flow off). */
  successTried: boolean;
  /** The customer was shown success: the payment was acknowledged. */
  acknowledgedSuccess: boolean;
  /** Two customers paid it side by side on two processes. */
  twins: boolean;
}

export interface Tally {
  createsSent: number;
  /** tx_ref → record, for every create answered 201. */
  sessions: Map<string, SessionRecord>;
  /** tx_ref → amount, for every create cut off by a fault: each must be whole or absent. */
  cutOffCreates: Map<string, number>;
  payments: { flows: number; acknowledgedSuccess: number; declined: number; faulted: number; twinPairs: number };
  verifies: { sent: number; answered: number };
  /** A verify that contradicted what had been acknowledged: a lost session or payment. */
  contradictions: string[];
  /** Answers that are neither right nor explained by a fault. */
  unexpected: string[];
}

/** How a worker uses a session it created; weights are out of 100. */
const PLANS = [
  { plan: 'none', weight: 30 },
  { plan: 'card', weight: 25 },
  { plan: 'mobile', weight: 15 },
  { plan: 'declined-then-paid', weight: 15 },
  { plan: 'twins', weight: 15 },
] as const;
type Plan = (typeof PLANS)[number]['plan'];

/** How long the load runs: at least `minMs`, and on until `enough` says so (a slow or busy machine), at most `maxMs`. */
export interface LoadLength {
  minMs: number;
  maxMs: number;
  enough(tally: Tally): boolean;
}

/**
 * Runs `workers` loops: each creates a session on the next process, maybe pays it through the
 * checkout on another (twice at once on two others, for `twins`), then verifies it on the next
 * and checks the answer against what was acknowledged.
 */
export async function runLoad(cluster: Cluster, key: string, workers: number, length: LoadLength): Promise<Tally> {
  const tally: Tally = {
    createsSent: 0,
    sessions: new Map(),
    cutOffCreates: new Map(),
    payments: { flows: 0, acknowledgedSuccess: 0, declined: 0, faulted: 0, twinPairs: 0 },
    verifies: { sent: 0, answered: 0 },
    contradictions: [],
    unexpected: [],
  };
  const started = Date.now();
  const goOn = () => {
    const elapsed = Date.now() - started;
    return elapsed < length.minMs || (elapsed < length.maxMs && !length.enough(tally));
  };
  let sequence = 0;

  const worker = async () => {
    while (goOn()) {
      sequence += 1;
      try {
        const creator = cluster.next();
        const session = await create(cluster, creator, key, 1_000 + sequence, tally);
        if (!session) continue;
        await carryOut(pickPlan(), cluster, creator, session, tally);
        const checker = cluster.next();
        const verified = await verify(cluster, checker, key, session.txRef, tally);
        if (verified !== FAULT) {
          const problem = problemWith(session, verified);
          if (problem) tally.contradictions.push(`verify on process ${checker.index} right after the flow: ${problem}`);
        }
      } catch (error) {
        tally.unexpected.push(
          error instanceof UnexpectedAnswer ? error.message : String((error as Error).stack ?? error),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return tally;
}

async function create(
  cluster: Cluster,
  slot: Slot,
  key: string,
  amount: number,
  tally: Tally,
): Promise<SessionRecord | null> {
  const body = currentBody({ amount });
  const txRef = String(body.tx_ref);
  tally.createsSent += 1;
  const answer = await cluster.guard(slot, 'create', () => call(slot.url, '/payment', { key, body }));
  if (answer === FAULT) {
    tally.cutOffCreates.set(txRef, amount);
    return null;
  }
  if (answer.status !== 201)
    throw new UnexpectedAnswer(`create on process ${slot.index} answered ${answer.status}: ${answer.text}`);
  const session: SessionRecord = {
    txRef,
    amount,
    pagePath: new URL(answer.body.data.checkout_url).pathname,
    attempts: 0,
    successTried: false,
    acknowledgedSuccess: false,
    twins: false,
  };
  tally.sessions.set(txRef, session);
  return session;
}

async function carryOut(
  plan: Plan,
  cluster: Cluster,
  creator: Slot,
  session: SessionRecord,
  tally: Tally,
): Promise<void> {
  const payOn = async (slot: Slot, instrument: Instrument): Promise<Paid> => {
    session.attempts += 1;
    if (instrument === CARD_PAYS || instrument === MOBILE_PAYS) session.successTried = true;
    tally.payments.flows += 1;
    const paid = await pay(cluster, slot, session.pagePath, instrument);
    if (paid === 'success') {
      session.acknowledgedSuccess = true;
      tally.payments.acknowledgedSuccess += 1;
    } else if (paid === 'declined') {
      tally.payments.declined += 1;
    } else {
      tally.payments.faulted += 1;
    }
    return paid;
  };
  const expect = (paid: Paid, wanted: Paid, instrument: Instrument) => {
    if (paid !== 'fault' && paid !== wanted)
      throw new UnexpectedAnswer(`${session.txRef}: paying with ${instrument.number} ended in ${paid}, not ${wanted}`);
  };
  const elsewhere = cluster.next(creator);

  switch (plan) {
    case 'none':
      return;
    case 'card':
    case 'mobile': {
      const instrument = plan === 'card' ? CARD_PAYS : MOBILE_PAYS;
      expect(await payOn(elsewhere, instrument), 'success', instrument);
      return;
    }
    case 'declined-then-paid': {
      const declined = Math.random() < 0.5 ? CARD_DECLINED : MOBILE_DECLINED;
      const first = await payOn(elsewhere, declined);
      expect(first, 'declined', declined);
      if (first === 'fault') return;
      const instrument = Math.random() < 0.5 ? CARD_PAYS : MOBILE_PAYS;
      expect(await payOn(cluster.next(), instrument), 'success', instrument);
      return;
    }
    case 'twins': {
      // The same customer in two tabs, landing on two different processes, both paying at once.
      session.twins = true;
      tally.payments.twinPairs += 1;
      const other = cluster.next(creator, elsewhere);
      const [a, b] =
        Math.random() < 0.5
          ? [CARD_PAYS, MOBILE_PAYS]
          : Math.random() < 0.5
            ? [CARD_PAYS, CARD_PAYS]
            : [MOBILE_PAYS, MOBILE_PAYS];
      const [paidA, paidB] = await Promise.all([payOn(elsewhere, a), payOn(other, b)]);
      expect(paidA, 'success', a);
      expect(paidB, 'success', b);
    }
  }
}

/** What a verification said: the session's figures, or the answer when there was none. */
export type Verified =
  { found: true; txRef: string; amount: number; status: string } | { found: false; answer: string };

/** Verifies `txRef` on `slot`, or FAULT. */
export async function verify(
  cluster: Cluster,
  slot: Slot,
  key: string,
  txRef: string,
  tally: Tally,
): Promise<Verified | typeof FAULT> {
  tally.verifies.sent += 1;
  const answer = await cluster.guard(slot, 'verify', () =>
    call(slot.url, `/verify-payment/${encodeURIComponent(txRef)}`, { key }),
  );
  if (answer === FAULT) return FAULT;
  tally.verifies.answered += 1;
  if (answer.status !== 200) return { found: false, answer: `${answer.status} ${answer.text}` };
  const data = answer.body.data as { tx_ref: string; amount: number; status: string };
  return { found: true, txRef: data.tx_ref, amount: data.amount, status: data.status };
}

/**
 * What is wrong with a verification of `session`, or null: it must be there with its amount; an
 * acknowledged payment must show as paid; a session nobody tried to pay must still be pending,
 * and one only ever offered declining instruments must not be paid.
 */
export function problemWith(session: SessionRecord, data: Verified): string | null {
  if (!data.found) return `${session.txRef} was acknowledged but verify answered ${data.answer}`;
  if (data.txRef !== session.txRef || data.amount !== session.amount)
    return `${session.txRef} came back as ${JSON.stringify(data)}`;
  if (session.acknowledgedSuccess && data.status !== 'success')
    return `${session.txRef}: the payment was acknowledged but the session is ${data.status}`;
  if (session.attempts === 0 && data.status !== 'pending')
    return `${session.txRef}: nobody paid it but it is ${data.status}`;
  if (!session.successTried && data.status === 'success')
    return `${session.txRef}: only declining instruments were used but it is paid`;
  return null;
}

function pickPlan(): Plan {
  let roll = Math.random() * 100;
  for (const { plan, weight } of PLANS) {
    roll -= weight;
    if (roll < 0) return plan;
  }
  return 'none';
}
