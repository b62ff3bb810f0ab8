import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { verifyWebhook } from 'lipira';
import { loadConfig } from '../../src/config.ts';
import { refreshCharge } from '../../src/core/charge-completion.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { CheckoutClient, alertOf, textOf } from '../helpers/checkout-client.ts';
import { bankTransferBody, bankTransferDetails, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import { lipira } from '../helpers/cli.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { currentBody, TIMESTAMP } from '../helpers/fixtures.ts';
import { assertFieldError, call, useTestGateway } from '../helpers/gateway.ts';
import {
  accountMinor,
  chargeBody,
  eventually,
  initializeCharge,
  ledgerKindsFor,
  merchantWithReceiver,
  settledByWorker,
  sortedKeys,
  testChargeRow,
} from '../helpers/mobile-money.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { temporaryFolder } from '../helpers/temp-folders.ts';

const TAKEN = { status: 'failed', message: { charge_id: ['The charge id has already been taken.'] }, data: null };
const TRANSACTION_KEYS = [
  'amount',
  'attempts',
  'authorization',
  'charge_id',
  'created_at',
  'currency',
  'event_type',
  'mobile',
  'mode',
  'ref_id',
  'status',
  'trace_id',
  'trans_id',
  'transaction_charges',
  'type',
];
const DETAILS_KEYS = [...TRANSACTION_KEYS, 'completed_at', 'failure_code', 'failure_reason', 'logs'].sort();
const PAYER_KEYS = [
  'brand',
  'card_number',
  'channel',
  'completed_at',
  'expiry',
  'mobile_number',
  'payer_account_name',
  'payer_account_number',
  'payer_bank',
  'payer_bank_uuid',
  'provider',
];

const outbox = temporaryFolder('lipira-outbox-');
after(() => outbox.remove());

for (const kind of DATABASE_KINDS) {
  // Test transfers do not arrive by themselves here: each test settles or ages its charge as it needs.
  describe(`bank transfer charges on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '1h', OUTBOX_DIR: outbox.dir });
    const key = () => ctx.merchant.test_secret_key;
    const deps = () =>
      paymentDeps(
        loadConfig({ DATABASE_URL: ctx.gw.database.url, SANDBOX_MOBILE_DELAY: '1h' }),
        ctx.gw.gateway.database,
      );

    test('initialize answers 201 with a one-time account for an hour and the pending charge, field for field', async () => {
      const body = bankTransferBody({ amount: '25000', mobile: '0991234567', create_permanent_account: true });
      const before = Math.floor(Date.now() / 1000);
      const res = await initializeBankTransfer(ctx.gw, key(), body);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Payment initialized successfully.');
      const { payment_account_details: account, transaction } = res.body.data;
      assert.deepEqual(sortedKeys(res.body.data), ['payment_account_details', 'transaction']);
      assert.equal(account.bank_name, 'Lipira Sandbox Bank');
      assert.match(account.account_number, /^\d{10}$/);
      assert.equal(account.account_name, 'Lipira / Test Shop');
      assert.ok(
        account.account_expiration_timestamp >= before + 3600 && account.account_expiration_timestamp <= before + 3601,
        String(account.account_expiration_timestamp),
      );
      assert.deepEqual(sortedKeys(transaction), TRANSACTION_KEYS);
      assert.equal(transaction.charge_id, body.charge_id);
      assert.match(transaction.ref_id, /^\d{11}$/);
      assert.equal(transaction.trans_id, null);
      assert.equal(transaction.trace_id, null);
      assert.equal(transaction.currency, 'MWK');
      assert.equal(transaction.amount, 25000);
      assert.equal(transaction.type, 'Direct API Payment');
      assert.equal(transaction.status, 'pending');
      assert.equal(transaction.mobile, '+265991xxxx67');
      assert.equal(transaction.attempts, 1);
      assert.equal(transaction.mode, 'sandbox');
      assert.match(transaction.created_at, TIMESTAMP);
      assert.equal(transaction.event_type, 'api.charge.payment');
      assert.deepEqual(transaction.transaction_charges, { currency: 'MWK', amount: '0.00' });
      assert.deepEqual(transaction.authorization, { channel: 'Mobile Bank Transfer' });

      // A retry with the same parameters (the amount written either way) answers the same charge and account.
      const again = await initializeBankTransfer(ctx.gw, key(), { ...body, amount: 25000 });
      assert.equal(again.status, 201, again.text);
      assert.deepEqual(again.body, res.body);

      const other = await initializeBankTransfer(ctx.gw, key(), bankTransferBody());
      assert.notEqual(
        other.body.data.payment_account_details.account_number,
        account.account_number,
        'one account per charge',
      );
    });

    test('the same request sent five times at once opens one account: every answer names it, one charge row', async () => {
      const body = bankTransferBody({ amount: '3000' });
      const answers = await Promise.all(Array.from({ length: 5 }, () => initializeBankTransfer(ctx.gw, key(), body)));
      for (const res of answers) assert.equal(res.status, 201, res.text);
      const accounts = new Set(answers.map((res) => res.body.data.payment_account_details.account_number));
      const refs = new Set(answers.map((res) => res.body.data.transaction.ref_id));
      assert.equal(accounts.size, 1, [...accounts].join(', '));
      assert.equal(refs.size, 1, [...refs].join(', '));
      const rows = await ctx.gw.gateway.database.db
        .selectFrom('charges')
        .select('id')
        .where('charge_id', '=', String(body.charge_id))
        .execute();
      assert.equal(rows.length, 1);
    });

    test('a pending charge shows its details: the account, no payer yet, its logs', async () => {
      const body = bankTransferBody();
      const created = await initializeBankTransfer(ctx.gw, key(), body);
      const res = await bankTransferDetails(ctx.gw, key(), String(body.charge_id));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Transaction retrieved successfully.');
      const { transaction } = res.body.data;
      assert.deepEqual(sortedKeys(transaction), DETAILS_KEYS);
      assert.equal(transaction.status, 'pending');
      assert.equal(transaction.completed_at, null);
      assert.equal(transaction.mobile, '0');
      assert.deepEqual(sortedKeys(transaction.authorization), PAYER_KEYS);
      assert.equal(transaction.authorization.channel, 'Mobile Bank Transfer');
      assert.equal(transaction.authorization.payer_bank, null);
      assert.deepEqual(res.body.data.payment_account_details, created.body.data.payment_account_details);
      assert.equal(transaction.logs.length, 1);
      assert.match(transaction.logs[0].message, /^Bank transfer requested: account \d{10} at Lipira Sandbox Bank/);
    });

    test('refusals: another method, another currency, a taken charge_id, bad amounts, a live key settling, unknown charges', async () => {
      assertFieldError(
        await initializeBankTransfer(ctx.gw, key(), bankTransferBody({ payment_method: 'card' })),
        'payment_method',
        /invalid: use mobile_bank_transfer/,
      );
      assertFieldError(
        await initializeBankTransfer(ctx.gw, key(), bankTransferBody({ currency: 'USD' })),
        'currency',
        /must be MWK/,
      );
      assertFieldError(
        await initializeBankTransfer(ctx.gw, key(), bankTransferBody({ currency: null })),
        'currency',
        /required/,
      );
      assertFieldError(
        await initializeBankTransfer(ctx.gw, key(), bankTransferBody({ amount: '10.5' })),
        'amount',
        /integer/,
      );
      assertFieldError(
        await initializeBankTransfer(ctx.gw, key(), bankTransferBody({ amount: 0 })),
        'amount',
        /at least 1/,
      );

      const body = bankTransferBody();
      assert.equal((await initializeBankTransfer(ctx.gw, key(), body)).status, 201);
      const other = await initializeBankTransfer(ctx.gw, key(), { ...body, amount: 26000 });
      assert.equal(other.status, 400);
      assert.deepEqual(other.body, TAKEN);
      // A mobile money charge's charge_id is taken too, and is not found among bank transfers.
      const momo = chargeBody();
      assert.equal((await initializeCharge(ctx.gw, key(), momo)).status, 201);
      assert.deepEqual(
        (await initializeBankTransfer(ctx.gw, key(), bankTransferBody({ charge_id: momo.charge_id }))).body,
        TAKEN,
      );
      assert.equal((await bankTransferDetails(ctx.gw, key(), String(momo.charge_id))).status, 404);

      const live = await bankTransferDetails(
        ctx.gw,
        ctx.merchant.live_secret_key,
        String(body.charge_id),
        'successful',
      );
      assertFieldError(live, 'transaction_status', /only be used with a test key/);
      // Live keys cannot open accounts until a bank is connected: refused, nothing recorded.
      const liveCreate = await initializeBankTransfer(
        ctx.gw,
        ctx.merchant.live_secret_key,
        bankTransferBody({ charge_id: 'live-bt' }),
      );
      assertFieldError(liveCreate, 'payment_method', /Live payments are not available yet/);
      assert.equal(
        (await bankTransferDetails(ctx.gw, ctx.merchant.live_secret_key, String(body.charge_id))).status,
        404,
        'a test charge is invisible to a live key',
      );

      const unknown = await bankTransferDetails(ctx.gw, key(), 'no-such-charge');
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { status: 'failed', message: 'Transaction not found.', data: null });
      assert.equal((await bankTransferDetails(ctx.gw, null, String(body.charge_id))).status, 401);
      assert.equal((await bankTransferDetails(ctx.gw, key(), String(body.charge_id), 'maybe')).status, 400);
    });

    test('transaction_status=successful pays it as an arriving transfer would: payer, fee, collection credit, webhook, ledger check clean', async () => {
      const receivers: Receiver[] = [];
      const { merchant, receiver } = await merchantWithReceiver(ctx.gw, receivers);
      try {
        const body = bankTransferBody({ amount: 1000 });
        await initializeBankTransfer(ctx.gw, merchant.test_secret_key, body);
        const res = await bankTransferDetails(ctx.gw, merchant.test_secret_key, String(body.charge_id), 'successful');
        assert.equal(res.status, 200, res.text);
        const { transaction } = res.body.data;
        assert.equal(transaction.status, 'success');
        assert.match(transaction.completed_at, TIMESTAMP);
        assert.deepEqual(transaction.transaction_charges, { currency: 'MWK', amount: '30.00' });
        assert.equal(transaction.authorization.payer_bank, 'National Bank of Malawi');
        assert.equal(transaction.authorization.payer_account_number, '******4321');
        assert.equal(transaction.authorization.payer_account_name, 'Test Payer');
        assert.equal(transaction.authorization.completed_at, transaction.completed_at);
        assert.deepEqual(transaction.logs.map((log: { message: string }) => log.message).slice(1), [
          'Payment completed',
        ]);
        const row = await testChargeRow(ctx.gw, merchant.id, String(body.charge_id));
        assert.deepEqual(await ledgerKindsFor(ctx.gw, row), ['collection']);
        assert.equal(await accountMinor(ctx.gw, merchant.id, 'collection'), 970_00);

        // Settling again changes nothing.
        const again = await bankTransferDetails(ctx.gw, merchant.test_secret_key, String(body.charge_id), 'failed');
        assert.equal(again.body.data.transaction.status, 'success');

        await eventually('the webhook', async () => receiver.received.length > 0);
        assert.equal(receiver.received.length, 1);
        const event = verifyWebhook(
          receiver.received[0]!.body,
          receiver.received[0]!.headers,
          merchant.webhook_secret,
        ) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- checked field by field
        assert.equal(event.event_type, 'api.charge.payment');
        assert.equal(event.charge_id, body.charge_id);
        assert.equal(event.status, 'success');
        assert.equal(event.amount, 1000);
        assert.equal(event.charge, 30);
        assert.equal(event.authorization.channel, 'Mobile Bank Transfer');
        assert.equal(event.authorization.payer_bank, 'National Bank of Malawi');

        const check = await lipira(['ledger', 'check'], { DATABASE_URL: ctx.gw.database.url });
        assert.equal(check.code, 0, check.stderr);
      } finally {
        await Promise.all(receivers.map((r) => r.close()));
      }
    });

    test('a transfer of another amount fails the charge with its reason and code, and moves no money', async () => {
      // The sandbox sends MWK 1 short for any amount whose kwacha end in 13.
      const body = bankTransferBody({ amount: 1013 });
      await initializeBankTransfer(ctx.gw, key(), body);
      const row = await testChargeRow(ctx.gw, ctx.merchant.id, String(body.charge_id));
      const ended = await refreshCharge(deps(), row, row.check_at!);
      assert.equal(ended.status, 'failed');
      const res = await bankTransferDetails(ctx.gw, key(), String(body.charge_id));
      const { transaction } = res.body.data;
      assert.equal(transaction.status, 'failed');
      assert.equal(transaction.failure_code, 'wrong_amount');
      assert.equal(
        transaction.failure_reason,
        'A transfer of MWK 1,012.00 arrived for MWK 1,013.00: only the exact amount pays this account, so the transfer was returned to the payer.',
      );
      assert.equal(transaction.authorization.payer_bank, null);
      assert.match(transaction.logs.at(-1).message, /^Payment failed: A transfer of MWK 1,012.00 arrived/);
      assert.deepEqual(await ledgerKindsFor(ctx.gw, row), []);
    });

    test('an account nobody pays into expires after an hour, ended by the settler', async () => {
      // The sandbox sends nothing for an amount whose kwacha end in 14.
      const body = bankTransferBody({ amount: 1014 });
      await initializeBankTransfer(ctx.gw, key(), body);
      const row = await testChargeRow(ctx.gw, ctx.merchant.id, String(body.charge_id));
      assert.equal(row.check_at, row.created_at + 3_600_000, 'asked again when the account expires');
      assert.equal(
        (await refreshCharge(deps(), row, row.created_at + 3_600_000 - 1)).status,
        'pending',
        'still open just before the hour',
      );
      // The settler ends it once due: its check time is moved to now, as the hour having passed would.
      await ctx.gw.gateway.database.db
        .updateTable('charges')
        .set({ check_at: Date.now(), created_at: Date.now() - 3_600_000 })
        .where('id', '=', row.id)
        .execute();
      const ended = await settledByWorker(ctx.gw, ctx.merchant.id, String(body.charge_id));
      assert.equal(ended.status, 'failed');
      assert.equal(ended.failure_code, 'expired');
      assert.equal(ended.failure_reason, 'The account expired before a transfer arrived.');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, ended), []);
    });

    /** A session of `amount` MWK opened on its hosted page, and a bank transfer attempt made there (without JavaScript). */
    async function transferAttempt(amount: number, currency = 'MWK') {
      const body = currentBody({ amount, currency });
      const created = await call(ctx.gw.url, '/payment', { key: key(), body });
      assert.equal(created.status, 201, created.text);
      const client = new CheckoutClient(ctx.gw.url);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      const page = await client.get(pagePath);
      const posted = await client.post(`${pagePath}/pay/bank-transfer`, {});
      return { client, pagePath, page, posted, txRef: String(body.tx_ref) };
    }

    test('the hosted page: bank transfer is offered for MWK only, shows the account, holds the one attempt slot, and can be set aside', async () => {
      const { client, pagePath, page, posted } = await transferAttempt(3000);
      assert.match(page.text, /id="method-bank"/);
      assert.equal(posted.status, 303, posted.text);
      const attempt = await client.get(new URL(posted.location!).pathname);
      assert.equal(attempt.status, 200);
      const text = textOf(attempt.text);
      assert.match(text, /Pay by bank transfer/);
      assert.match(text, /Account number \d{10} Copy/);
      assert.match(text, /Bank Lipira Sandbox Bank/);
      assert.match(text, /Account name Lipira \/ Test Shop/);
      assert.match(text, /Amount MWK 3,000\.00/);
      assert.match(text, /The account closes in (60:00|59:\d\d)/);
      assert.match(attempt.text, /aria-label="Copy account number"/);

      // The same method again lands on the same attempt; another method waits for it to be set aside.
      const again = await client.post(`${pagePath}/pay/bank-transfer`, {});
      assert.equal(again.location, posted.location);
      const momo = await client.post(`${pagePath}/pay/mobile-money`, { mobile: '0990000000', operator: '' });
      assert.equal(momo.status, 422);
      assert.match(alertOf(momo), /A bank transfer is already awaited for this payment/);
      const setAside = await client.post(`${new URL(posted.location!).pathname}/abandon`, {});
      assert.equal(setAside.status, 303);
      assert.equal(new URL(setAside.location!).pathname, pagePath);
      assert.equal(
        (await client.post(`${pagePath}/pay/mobile-money`, { mobile: '0990000000', operator: '' })).status,
        303,
      );

      const usd = await transferAttempt(30, 'USD');
      assert.doesNotMatch(usd.page.text, /id="method-bank"/);
      assert.equal(usd.posted.status, 422);
      assert.match(alertOf(usd.posted), /Bank transfers are taken in MWK only/);
    });

    test('the hosted page: a wrong amount fails the attempt with advice and a checkout.payment event; an exact one pays the session', async () => {
      const wrong = await transferAttempt(1013);
      const attemptPath = new URL(wrong.posted.location!).pathname;
      const chargeId = attemptPath.split('/').pop()!;
      const row = await testChargeRow(ctx.gw, ctx.merchant.id, chargeId);
      assert.equal((await refreshCharge(deps(), row, row.check_at!)).status, 'failed');
      const failed = await wrong.client.get(attemptPath);
      assert.equal(
        alertOf(failed),
        'The transfer was not the exact amount, so your bank was sent it back — get a new account and transfer exactly the amount shown, or pay another way. 2 tries left.',
      );
      const events = await ctx.gw.gateway.database.db
        .selectFrom('events')
        .select('payload')
        .where('type', '=', 'checkout.payment')
        .execute();
      assert.ok(
        events.some(
          (event) =>
            event.payload.includes(`"charge_id":"${chargeId}"`) &&
            event.payload.includes('"failure_reason":"A transfer of MWK 1,012.00'),
        ),
        "the failed attempt's event",
      );
      const session = await call(ctx.gw.url, `/verify-payment/${wrong.txRef}`, { key: key() });
      assert.equal(session.body.data.status, 'pending');

      const exact = await transferAttempt(2000);
      const exactRow = await testChargeRow(
        ctx.gw,
        ctx.merchant.id,
        new URL(exact.posted.location!).pathname.split('/').pop()!,
      );
      await refreshCharge(deps(), exactRow, exactRow.check_at!);
      const paid = await call(ctx.gw.url, `/verify-payment/${exact.txRef}`, { key: key() });
      assert.equal(paid.body.data.status, 'success');
      assert.equal(paid.body.data.authorization.channel, 'Mobile Bank Transfer');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, exactRow), ['collection']);
      const check = await lipira(['ledger', 'check'], { DATABASE_URL: ctx.gw.database.url });
      assert.equal(check.code, 0, check.stderr);
    });

    test('an exact transfer arrives by itself after the sandbox delay', async () => {
      const body = bankTransferBody({ amount: 2000 });
      await initializeBankTransfer(ctx.gw, key(), body);
      const row = await testChargeRow(ctx.gw, ctx.merchant.id, String(body.charge_id));
      await ctx.gw.gateway.database.db
        .updateTable('charges')
        .set({ check_at: Date.now() })
        .where('id', '=', row.id)
        .execute();
      const ended = await settledByWorker(ctx.gw, ctx.merchant.id, String(body.charge_id));
      assert.equal(ended.status, 'success');
      assert.deepEqual(await ledgerKindsFor(ctx.gw, ended), ['collection']);
      const account = await ctx.gw.gateway.database.db
        .selectFrom('bank_transfer_accounts')
        .selectAll()
        .where('charge_ref', '=', row.id)
        .executeTakeFirstOrThrow();
      assert.equal(account.payer_account_name, 'Test Payer');
    });
  });
}
