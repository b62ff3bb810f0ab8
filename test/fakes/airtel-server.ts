import { constants, createHmac, generateKeyPairSync, privateDecrypt, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';

/** A transaction's state as Airtel's enquiries report it (a refunded collection reports TR). */
export type AirtelState = 'TS' | 'TF' | 'TA' | 'TIP';

/**
 * How the fake plays one transaction, scripted by the subscriber's number (as sent, without 265)
 * or by our transaction id.
 */
export interface Behaviour {
  /**
   * How the request that starts it is answered:
   * - `accept` (the default): in process for a collection, its first state for a disbursement;
   * - `hang`: Airtel takes the transaction (money moves) but never answers;
   * - `http500`: taken as well, answered HTTP 500;
   * - `unreadable`: taken, answered 200 with a body that is not JSON;
   * - `ambiguous`: taken, answered inside an HTTP 200 with `status.success: false` and Airtel's
   *   "ambiguous, do an enquiry" code (DP00800001000 or DP00900001000), as it does when its own
   *   systems time out: only the enquiry tells how it went;
   * - `{ code }`: not taken, answered inside an HTTP 200 with `status.success: false` and that code;
   * - `{ httpStatus, body }`: not taken, answered so.
   */
  answer?:
    | 'accept'
    | 'hang'
    | 'http500'
    | 'unreadable'
    | 'ambiguous'
    | { code: string; message?: string }
    | { httpStatus: number; body: unknown };
  /** The states the enquiries report in turn, the last repeating. Default: TIP then TS for a collection (the customer approves by the second enquiry), TS for a disbursement. */
  states?: AirtelState[];
  /** Instead of `states`: TIP until this long after the push, then TS (the customer approving). */
  approveAfterMs?: number;
  /** The `response_code` beside TF. */
  failureCode?: string;
  /** How a refund of this collection is answered: `accept`, or `hang` (done, never answered). */
  refundAnswer?: 'accept' | 'hang';
}

export interface FakeTransaction {
  id: string;
  kind: 'collection' | 'disbursement';
  msisdn: string;
  amount: number;
  airtelMoneyId: string;
  enquiries: number;
  refunded: boolean;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeAirtelOptions {
  clientId?: string;
  clientSecret?: string;
  /** `expires_in` of the tokens it issues, in seconds (Airtel's: 180). */
  tokenLifetimeSeconds?: number;
  /** The disbursement PIN it expects, once decrypted. */
  disbursementPin?: string;
  /** Where `sendCallback` posts, and the callback authentication key it hashes with. */
  callbackUrl?: string;
  callbackSecret?: string | null;
}

export interface CallbackOptions {
  /** Overrides the fake's callback secret; null sends no hash. */
  secret?: string | null;
  /** Sends the same callback twice, as Airtel may. */
  duplicate?: boolean;
  /** Hashes the `transaction` object alone instead of `{"transaction":…}`. */
  hashTransactionOnly?: boolean;
  /** Changes the body after hashing it (a forged or corrupted callback). */
  tamper?: boolean;
}

export interface FakeAirtel {
  url: string;
  clientId: string;
  clientSecret: string;
  disbursementPin: string;
  /** Airtel's public key for the disbursement PIN; the fake keeps the private half. */
  publicKeyPem: string;
  /** Every request it received, in order, token requests included. */
  requests: ReceivedRequest[];
  script(key: string, behaviour: Behaviour): void;
  /** Makes every token issued so far invalid (401), as if it expired early. */
  revokeTokens(): void;
  transaction(id: string): FakeTransaction | undefined;
  /** The customer approves transaction `id` now: its enquiries report TS from here on, whatever it was scripted to say. */
  approve(id: string): void;
  /** The requests that hit `path` with `method`. */
  received(method: string, path: string): ReceivedRequest[];
  /** Posts Airtel's callback for transaction `id` (its current state) to `callbackUrl`; the HTTP statuses it got. */
  sendCallback(id: string, options?: CallbackOptions): Promise<number[]>;
  /** Where `sendCallback` posts from now on (a gateway started after the fake). */
  callbacksTo(url: string): void;
  /** While on, every request is answered 503 by Airtel's load balancer, with an HTML page: nothing reaches a product. */
  outage(on: boolean): void;
  /** Every answer from now on comes this much later (0: at once); the request is handled when it arrives. */
  answerAfter(ms: number): void;
  close(): Promise<void>;
}

interface Stored extends FakeTransaction {
  behaviour: Behaviour;
  startedAt: number;
}

const OK_STATUS = { code: '200', message: 'SUCCESS', result_code: 'ESB000010', success: true };

/**
 * Airtel Money's Open API on loopback, speaking its JSON and its odd answers (errors inside HTTP
 * 200s, codes instead of statuses): OAuth2 tokens, USSD push collections and their enquiry,
 * refunds, B2C disbursements checking the RSA-encrypted PIN, and callbacks.
 */
export async function startFakeAirtel(options: FakeAirtelOptions = {}): Promise<FakeAirtel> {
  const clientId = options.clientId ?? 'fake-airtel-client';
  const clientSecret = options.clientSecret ?? 'fake-airtel-secret';
  const disbursementPin = options.disbursementPin ?? '4321';
  const lifetimeSeconds = options.tokenLifetimeSeconds ?? 180;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

  const requests: ReceivedRequest[] = [];
  const scripts = new Map<string, Behaviour>();
  const transactions = new Map<string, Stored>();
  const tokens = new Map<string, number>();
  const hanging: (() => void)[] = [];
  let issued = 0;

  let callbackUrl = options.callbackUrl;
  let down = false;
  let answerDelayMs = 0;
  const app = Fastify({ forceCloseConnections: true });
  app.addHook('onRequest', async (_request, reply) => {
    if (down)
      return reply
        .code(503)
        .type('text/html')
        .send('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
  });
  app.addHook('preHandler', async (request) => {
    requests.push({ method: request.method, path: request.url, headers: request.headers, body: request.body });
  });
  app.addHook('onSend', async () => {
    if (answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, answerDelayMs));
  });

  app.post('/auth/oauth2/token', async (request, reply) => {
    const body = request.body as { client_id?: string; client_secret?: string; grant_type?: string };
    if (
      body.client_id !== clientId ||
      body.client_secret !== clientSecret ||
      body.grant_type !== 'client_credentials'
    ) {
      return reply.code(401).send({ error: 'invalid_client', error_description: 'Client authentication failed' });
    }
    const token = `fake-airtel-token-${++issued}`;
    tokens.set(token, Date.now() + lifetimeSeconds * 1000);
    // Airtel's samples give `expires_in` as a string.
    return { access_token: token, expires_in: String(lifetimeSeconds), token_type: 'bearer' };
  });

  /** Airtel's gateway checks the token and the country headers before any product sees the request. */
  function gatewayRefusal(request: FastifyRequest, reply: FastifyReply): FastifyReply | null {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const expiresAt = token ? tokens.get(token) : undefined;
    if (!expiresAt || expiresAt <= Date.now())
      return reply.code(401).send({ error: 'invalid_token', error_description: 'Access token expired or invalid' });
    if (!request.headers['x-country'] || !request.headers['x-currency']) {
      return reply.code(400).send({
        status: {
          code: '400',
          message: 'Mandatory parameters are missing',
          result_code: 'ROUTER003',
          success: false,
        },
      });
    }
    return null;
  }

  /**
   * Answers a start as its behaviour says (`accepted` gives the answer of a taken one; `product`
   * whose codes an ambiguous answer carries); a hanging one is cut when the fake closes.
   */
  async function startAnswer(
    behaviour: Behaviour,
    reply: FastifyReply,
    product: 'DP008' | 'DP009',
    accepted: () => unknown,
  ): Promise<unknown> {
    const answer = behaviour.answer ?? 'accept';
    if (answer === 'accept') return accepted();
    if (answer === 'ambiguous')
      return {
        data: {},
        status: {
          code: '200',
          message: 'Transaction is ambiguous, please do an enquiry',
          response_code: `${product}00001000`,
          result_code: 'ESB000001',
          success: false,
        },
      };
    if (answer === 'hang') {
      await new Promise<void>((resolve) => hanging.push(resolve));
      reply.hijack();
      reply.raw.destroy();
      return reply;
    }
    if (answer === 'http500') return reply.code(500).send({ error: 'Internal Server Error' });
    if (answer === 'unreadable') return reply.code(200).type('application/json').send('<html>upstream error</html>');
    if ('code' in answer)
      return {
        data: {},
        status: {
          code: '200',
          message: answer.message ?? 'FAILED',
          response_code: answer.code,
          result_code: 'ESB000011',
          success: false,
        },
      };
    return reply.code(answer.httpStatus).send(answer.body);
  }

  /** Whether Airtel takes the transaction into its books (every answer but a refusal by code or HTTP status). */
  function takes(behaviour: Behaviour): boolean {
    const answer = behaviour.answer ?? 'accept';
    return typeof answer === 'string';
  }

  function behaviourFor(msisdn: string, id: string): Behaviour {
    return scripts.get(id) ?? scripts.get(msisdn) ?? {};
  }

  function store(
    kind: FakeTransaction['kind'],
    id: string,
    msisdn: string,
    amount: number,
    behaviour: Behaviour,
  ): Stored {
    const stored: Stored = {
      id,
      kind,
      msisdn,
      amount,
      airtelMoneyId: `${kind === 'collection' ? 'MP' : 'DB'}${Date.now()}.${transactions.size + 1}`,
      enquiries: 0,
      refunded: false,
      behaviour,
      startedAt: Date.now(),
    };
    transactions.set(id, stored);
    return stored;
  }

  function stateOf(stored: Stored): AirtelState {
    const { behaviour } = stored;
    if (behaviour.approveAfterMs !== undefined)
      return Date.now() - stored.startedAt >= behaviour.approveAfterMs ? 'TS' : 'TIP';
    const states = behaviour.states ?? (stored.kind === 'collection' ? ['TIP', 'TS'] : ['TS']);
    return states[Math.min(stored.enquiries, states.length - 1)] ?? 'TIP';
  }

  function enquire(stored: Stored): AirtelState {
    const state = stateOf(stored);
    stored.enquiries += 1;
    return state;
  }

  function transactionAnswer(stored: Stored, state: AirtelState | 'TR', product: 'DP008' | 'DP009'): unknown {
    const responseCode =
      state === 'TF'
        ? (stored.behaviour.failureCode ?? `${product}00001005`)
        : state === 'TS' || state === 'TR'
          ? `${product}00001001`
          : state === 'TA'
            ? `${product}00001000`
            : `${product}00001006`;
    return {
      data: {
        transaction: {
          ...(state === 'TS' || state === 'TR' ? { airtel_money_id: stored.airtelMoneyId } : {}),
          id: stored.id,
          message: state === 'TS' ? 'success' : state === 'TF' ? 'failed' : 'in progress',
          status: state,
        },
      },
      status: { ...OK_STATUS, response_code: responseCode },
    };
  }

  function notFound(product: 'DP008' | 'DP009'): unknown {
    const responseCode = product === 'DP008' ? 'DP00800001025' : 'DP00900001015';
    return {
      data: {},
      status: {
        code: '404',
        message: 'Transaction not found',
        result_code: 'ESB000045',
        response_code: responseCode,
        success: false,
      },
    };
  }

  app.post('/merchant/v1/payments/', async (request, reply) => {
    if (gatewayRefusal(request, reply)) return reply;
    const body = request.body as {
      reference?: string;
      subscriber?: { msisdn?: string };
      transaction?: { id?: string; amount?: number };
    };
    const id = body.transaction?.id;
    const msisdn = body.subscriber?.msisdn;
    if (!id || !msisdn || typeof body.transaction?.amount !== 'number') {
      return reply
        .code(400)
        .send({ status: { code: '400', message: 'Field validation error', result_code: 'ESB000008', success: false } });
    }
    if (!/^\d{9}$/.test(msisdn))
      return {
        data: {},
        status: { code: '400', message: 'Invalid MSISDN Length', result_code: 'ESB000033', success: false },
      };
    if (transactions.has(id))
      return {
        data: {},
        status: {
          code: '400',
          message: 'External Transaction ID already exists',
          result_code: 'ESB000041',
          success: false,
        },
      };
    const behaviour = behaviourFor(msisdn, id);
    if (takes(behaviour)) store('collection', id, msisdn, body.transaction.amount, behaviour);
    return startAnswer(behaviour, reply, 'DP008', () => ({
      data: { transaction: { id: false, status: 'SUCCESS' } },
      status: { ...OK_STATUS, response_code: 'DP00800001006' },
    }));
  });

  app.get('/standard/v1/payments/:id', async (request, reply) => {
    if (gatewayRefusal(request, reply)) return reply;
    const stored = transactions.get((request.params as { id: string }).id);
    if (!stored || stored.kind !== 'collection') return notFound('DP008');
    return transactionAnswer(stored, stored.refunded ? 'TR' : enquire(stored), 'DP008');
  });

  app.post('/standard/v1/payments/refund', async (request, reply) => {
    if (gatewayRefusal(request, reply)) return reply;
    const airtelMoneyId = (request.body as { transaction?: { airtel_money_id?: string } }).transaction?.airtel_money_id;
    const stored = [...transactions.values()].find(
      (candidate) => candidate.kind === 'collection' && candidate.airtelMoneyId === airtelMoneyId,
    );
    if (!stored || stateOf(stored) !== 'TS' || stored.refunded) {
      return {
        data: {},
        status: {
          code: '400',
          message: 'Transaction is not refundable',
          result_code: 'ESB000011',
          response_code: 'DP00800001008',
          success: false,
        },
      };
    }
    stored.refunded = true;
    return startAnswer({ answer: stored.behaviour.refundAnswer ?? 'accept' }, reply, 'DP008', () => ({
      data: { transaction: { airtel_money_id: stored.airtelMoneyId, status: 'SUCCESS' } },
      status: OK_STATUS,
    }));
  });

  app.post('/standard/v1/disbursements/', async (request, reply) => {
    if (gatewayRefusal(request, reply)) return reply;
    const body = request.body as {
      payee?: { msisdn?: string; wallet_type?: string };
      reference?: string;
      pin?: string;
      transaction?: { amount?: number; id?: string; type?: string };
    };
    const id = body.transaction?.id;
    const msisdn = body.payee?.msisdn;
    if (
      !id ||
      !msisdn ||
      typeof body.transaction?.amount !== 'number' ||
      body.transaction.type !== 'B2C' ||
      !body.pin
    ) {
      return reply.code(400).send({
        status: {
          code: '400',
          message: 'Mandatory parameters are missing',
          result_code: 'ROUTER003',
          success: false,
        },
      });
    }
    const pin = decryptPin(privateKey, body.pin);
    if (pin === null)
      return {
        status: {
          code: '400',
          message: 'The encrypted value of the pin is incorrect.',
          result_code: 'ROUTER116',
          success: false,
        },
      };
    if (pin !== disbursementPin)
      return {
        status: {
          code: '400',
          message: 'Pin you have entered is incorrect.',
          result_code: 'ROUTER115',
          success: false,
        },
      };
    if (transactions.has(id))
      return {
        data: {},
        status: {
          code: '400',
          message: 'Duplicate Transaction Id',
          result_code: 'ESB000041',
          response_code: 'DP00900001017',
          success: false,
        },
      };
    const behaviour = behaviourFor(msisdn, id);
    if (!takes(behaviour)) return startAnswer(behaviour, reply, 'DP009', () => undefined);
    const stored = store('disbursement', id, msisdn, body.transaction.amount, behaviour);
    return startAnswer(behaviour, reply, 'DP009', () => transactionAnswer(stored, enquire(stored), 'DP009'));
  });

  app.get('/standard/v1/disbursements/:id', async (request, reply) => {
    if (gatewayRefusal(request, reply)) return reply;
    const stored = transactions.get((request.params as { id: string }).id);
    if (!stored || stored.kind !== 'disbursement') return notFound('DP009');
    return transactionAnswer(stored, enquire(stored), 'DP009');
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';

  return {
    url,
    clientId,
    clientSecret,
    disbursementPin,
    publicKeyPem,
    requests,
    script: (key, behaviour) => void scripts.set(key, behaviour),
    revokeTokens: () => tokens.clear(),
    transaction: (id) => transactions.get(id),
    approve(id) {
      const stored = transactions.get(id);
      if (!stored) throw new Error(`no transaction ${id}`);
      stored.behaviour = { approveAfterMs: 0 };
    },
    received: (method, path) => requests.filter((request) => request.method === method && request.path === path),
    async sendCallback(id, callbackOptions = {}) {
      const stored = transactions.get(id);
      if (!stored || !callbackUrl) throw new Error(`no transaction ${id} or no callback URL`);
      const state = stateOf(stored);
      const transaction = {
        id,
        message: state === 'TS' ? `Paid MWK ${stored.amount}, Trans ID ${stored.airtelMoneyId}.` : 'Transaction failed',
        status_code: state === 'TS' ? 'TS' : 'TF',
        airtel_money_id: stored.airtelMoneyId,
      };
      const secret = callbackOptions.secret === undefined ? (options.callbackSecret ?? null) : callbackOptions.secret;
      const hashed = JSON.stringify(callbackOptions.hashTransactionOnly ? transaction : { transaction });
      const hash = secret === null ? undefined : createHmac('sha256', secret).update(hashed).digest('base64');
      const body = JSON.stringify({
        transaction: callbackOptions.tamper ? { ...transaction, status_code: 'TS', id: `${id}x` } : transaction,
        ...(hash ? { hash } : {}),
      });
      const statuses: number[] = [];
      for (let sent = 0; sent < (callbackOptions.duplicate ? 2 : 1); sent++) {
        const response = await fetch(callbackUrl, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        statuses.push(response.status);
      }
      return statuses;
    },
    callbacksTo: (url) => void (callbackUrl = url),
    outage: (on) => void (down = on),
    answerAfter: (ms) => void (answerDelayMs = ms),
    async close() {
      for (const release of hanging.splice(0)) release();
      await app.close();
    },
  };
}

/**
 * Undoes the connector's RSA PKCS#1 v1.5 encryption. Node 20 refuses PKCS#1 v1.5 private
 * decryption (CVE-2023-46809), so the fake decrypts without padding and removes the padding
 * itself: 0x00 0x02, at least eight non-zero bytes, 0x00, then the PIN. Null when it is not that.
 */
function decryptPin(privateKey: KeyObject, encrypted: string): string | null {
  let block: Buffer;
  try {
    block = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, Buffer.from(encrypted, 'base64'));
  } catch {
    return null;
  }
  const separator = block.indexOf(0, 2);
  if (block[0] !== 0 || block[1] !== 2 || separator < 10) return null;
  return block.subarray(separator + 1).toString('utf8');
}
