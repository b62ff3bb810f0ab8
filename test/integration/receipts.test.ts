import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import { startEmailWorker } from '../../src/emails/email-worker.ts';
import { updateMerchantSettings, type MerchantCredentials } from '../../src/merchants/merchant-service.ts';
import { completeDirectCharge } from '../../src/payments/direct-charges.ts';
import { paymentDeps } from '../../src/payment-deps.ts';
import { recordDirectPayment } from '../helpers/direct-charges.ts';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { call, freePort, useTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { AIRTEL_REF, chargeBody, eventually, initializeCharge } from '../helpers/mobile-money.ts';
import { bankTransferBody, initializeBankTransfer } from '../helpers/bank-transfers.ts';
import { cardBody, payByDirectCard } from '../helpers/cards.ts';
import { CheckoutClient } from '../helpers/checkout-client.ts';
import { currentBody } from '../helpers/fixtures.ts';
import { payByCard, payByMobileMoney } from '../helpers/payments.ts';
import { parseMessage, startSmtp, type Mail, type SmtpPeer } from '../helpers/smtp.ts';

/** Timings short enough for a test: the sandbox settles in 100 ms and a failed send is retried three times, 300 ms apart. */
const FAST = { SANDBOX_MOBILE_DELAY: '100ms', WORKER_INTERVAL: '100ms', EMAIL_RETRY_SCHEDULE: '300ms,300ms,300ms' };
/** Enough worker rounds for a duplicate to have shown up, had there been one. */
const A_FEW_ROUNDS_MS = 600;
const PAYS = '0990000000';
const DECLINED = '0990000001';

/** The receipt rows a payment queued, found through its event and checkout session. */
function emailRows(gw: TestGateway, txRef: string) {
  return gw.gateway.database.db
    .selectFrom('emails')
    .innerJoin('events', 'events.id', 'emails.event_id')
    .innerJoin('checkout_sessions', 'checkout_sessions.id', 'events.subject_id')
    .selectAll('emails')
    .where('checkout_sessions.tx_ref', '=', txRef)
    .orderBy('emails.kind')
    .execute();
}

/** The session as verification shows it: its status and the reference a receipt must carry. */
async function verify(gw: TestGateway, key: string, txRef: string): Promise<{ status: string; reference: string }> {
  const response = await call(gw.url, `/verify-payment/${txRef}`, { key });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

/**
 * A live mobile money charge that succeeded, with the customer's email, recorded through the
 * payment services: the sandbox takes only test keys and no live operator is connected in this
 * build. Returns the charge's row id, which its event (and so its receipts) names.
 */
async function paidLiveCharge(
  gw: TestGateway,
  env: Record<string, string>,
  merchant: MerchantCredentials,
  email: string,
): Promise<string> {
  const request = {
    mobile: PAYS,
    mobile_money_operator_ref_id: AIRTEL_REF,
    amount: 1000,
    charge_id: `live-receipt-${++liveCharges}`,
    email,
    first_name: 'Jane',
    last_name: 'Banda',
  };
  const charge = await recordDirectPayment(gw.gateway.database, { merchantId: merchant.id, mode: 'live' }, request);
  const deps = paymentDeps(loadConfig({ ...env, DATABASE_URL: gw.database.url }), gw.gateway.database);
  assert.ok(
    await completeDirectCharge(deps, charge, { status: 'success', transId: `live-${charge.ref_id}` }, Date.now()),
  );
  return charge.id;
}
let liveCharges = 0;

/** The receipt rows a direct charge queued, found through its event. */
function chargeEmailRows(gw: TestGateway, chargeRowId: string) {
  return gw.gateway.database.db
    .selectFrom('emails')
    .innerJoin('events', 'events.id', 'emails.event_id')
    .selectAll('emails')
    .where('events.subject_id', '=', chargeRowId)
    .orderBy('emails.kind')
    .execute();
}

/** Refunds `amount` of a paid checkout session through the API; answers the refund's id and the receipt rows its success queued, once both are sent. */
async function refundedWithReceipts(
  gw: TestGateway,
  key: string,
  txRef: string,
  amount: number,
  reason: string,
): Promise<{ refundId: string; rows: Awaited<ReturnType<typeof refundEmailRows>> }> {
  const created = await call(gw.url, '/refunds', { key, body: { tx_ref: txRef, amount, reason } });
  assert.equal(created.status, 201, created.text);
  const refundId: string = created.body.data.refund_id;
  const rows = await eventually('both refund receipts done', async () => {
    const found = await refundEmailRows(gw, refundId);
    return found.length === 2 && found.every((row) => row.status === 'sent') && found;
  });
  return { refundId, rows };
}

/** The receipt rows a refund's success queued, found through its event. */
function refundEmailRows(gw: TestGateway, refundId: string) {
  return gw.gateway.database.db
    .selectFrom('emails')
    .innerJoin('events', 'events.id', 'emails.event_id')
    .innerJoin('refunds', 'refunds.id', 'events.subject_id')
    .selectAll('emails')
    .where('refunds.refund_id', '=', refundId)
    .orderBy('emails.kind')
    .execute();
}

/** The messages in an outbox directory, by file name. */
function outboxMails(dir: string): Map<string, Omit<Mail, 'envelopeTo'>> {
  return new Map(
    fs.readdirSync(dir).map((file) => [file, parseMessage(fs.readFileSync(path.join(dir, file), 'utf8'))]),
  );
}

let customers = 0;
/** A customer address no other test uses, so that each test finds its own messages. */
const newCustomerEmail = () => `customer${++customers}@example.com`;

/** What a receipt shows when it reads a field its event lacks. */
const LEAKED = /\b(undefined|null|NaN)\b/;

function assertReceiptContent(mail: Mail, parts: string[]): void {
  for (const part of parts) {
    assert.ok(mail.text.includes(part), `text has ${part}:\n${mail.text}`);
    assert.ok(mail.html.includes(part), `HTML has ${part}:\n${mail.html}`);
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`receipt emails over SMTP, with TEST_RECEIPTS_TO_CUSTOMERS on, on ${kind}`, () => {
    // Test payments then mail their customers too, as live ones do: what these tests look at.
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
    const env: Record<string, string> = { ...FAST, OUTBOX_DIR: outbox, TEST_RECEIPTS_TO_CUSTOMERS: 'on' };
    let smtp: SmtpPeer;
    before(async () => {
      smtp = await startSmtp();
      env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
    });
    const ctx = useTestGateway(kind, env);
    after(async () => {
      await smtp.close();
      fs.rmSync(outbox, { recursive: true, force: true });
    });

    const mailsTo = (address: string) => smtp.mails.filter((mail) => mail.envelopeTo.includes(address));
    const mailsAbout = (txRef: string) => smtp.mails.filter((mail) => mail.text.includes(txRef));

    /** A session paid by bank transfer on its hosted page (the sandbox's transfer arrives after its delay); its tx_ref. */
    async function transferAtCheckout(key: string, email: string): Promise<string> {
      const body = currentBody({ email });
      const created = await call(ctx.gw.url, '/payment', { key, body });
      assert.equal(created.status, 201, created.text);
      const client = new CheckoutClient(ctx.gw.url);
      const pagePath = new URL(created.body.data.checkout_url).pathname;
      assert.equal((await client.get(pagePath)).status, 200);
      assert.equal((await client.post(`${pagePath}/pay/bank-transfer`, {})).status, 303);
      const txRef = String(body.tx_ref);
      await eventually('the transfer to arrive', async () => (await verify(ctx.gw, key, txRef)).status === 'success');
      return txRef;
    }

    test('a payment sends the merchant and the customer one receipt each, with escaped merchant text', async () => {
      const merchant = await ctx.gw.newMerchant('<b>Bad & Co</b>');
      const customer = newCustomerEmail();
      const title = '<script>alert("x")</script>';
      const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, PAYS, {
        email: customer,
        customization: { title },
      });
      const { status, reference } = await verify(ctx.gw, merchant.test_secret_key, paid.txRef);
      assert.equal(status, 'success');
      await eventually('two receipts', () => mailsAbout(paid.txRef).length >= 2);
      await sleep(A_FEW_ROUNDS_MS);

      const mails = mailsAbout(paid.txRef);
      assert.equal(mails.length, 2, 'one message each, and no more after further rounds');
      const [toCustomer] = mailsTo(customer);
      const toMerchant = mails.find((mail) => mail !== toCustomer);
      assert.ok(toCustomer && toMerchant);
      assert.deepEqual(toMerchant.envelopeTo, [merchant.email]);
      assert.equal(toMerchant.headers.get('to'), merchant.email);
      assert.equal(toCustomer.headers.get('to'), customer);
      assert.match(toMerchant.headers.get('subject')!, /^Payment received: MWK 1,000\.00/);
      assert.equal(toCustomer.headers.get('subject'), 'Your receipt from <b>Bad & Co</b>: MWK 1,000.00');
      for (const mail of [toMerchant, toCustomer]) {
        assertReceiptContent(mail, ['MWK 1,000.00', reference, paid.txRef, 'Airtel Money (+265990xxxx00)', 'CAT']);
        assert.ok(mail.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), mail.html);
        assert.ok(mail.html.includes('&lt;b&gt;Bad &amp; Co&lt;/b&gt;'), mail.html);
        assert.ok(!/<script|<b>/.test(mail.html), 'no merchant markup in the HTML');
        assert.ok(!mail.text.includes('990000000'), 'no full mobile number');
      }

      const rows = await emailRows(ctx.gw, paid.txRef);
      assert.deepEqual(
        rows.map((row) => [row.kind, row.recipient, row.status, row.attempts]),
        [
          ['customer_receipt', customer, 'sent', 1],
          ['merchant_receipt', merchant.email, 'sent', 1],
        ],
      );
      assert.ok(rows.every((row) => row.sent_at !== null && row.locked_until === null && row.last_error === null));
      assert.deepEqual(fs.readdirSync(outbox), [], 'nothing held in the outbox');
    });

    test('a session without a customer email sends only the merchant receipt', async () => {
      const paid = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, PAYS, { email: undefined });
      await eventually('the merchant receipt', () => mailsAbout(paid.txRef).length >= 1);
      await sleep(A_FEW_ROUNDS_MS);
      const mails = mailsAbout(paid.txRef);
      assert.equal(mails.length, 1);
      assert.deepEqual(mails[0]!.envelopeTo, [ctx.merchant.email]);
      assert.deepEqual(
        (await emailRows(ctx.gw, paid.txRef)).map((row) => row.kind),
        ['merchant_receipt'],
      );
    });

    test('a merchant who turned receipts off gets none, nor do their customers', async () => {
      const merchant = await ctx.gw.newMerchant('Quiet Shop');
      assert.ok(
        await updateMerchantSettings(ctx.gw.gateway.database.db, merchant.id, { receiptsEnabled: false }, Date.now()),
      );
      const customer = newCustomerEmail();
      const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, PAYS, { email: customer });
      assert.equal((await verify(ctx.gw, merchant.test_secret_key, paid.txRef)).status, 'success');
      await sleep(A_FEW_ROUNDS_MS);
      assert.equal(mailsAbout(paid.txRef).length, 0);
      assert.equal(mailsTo(customer).length, 0);
      assert.equal((await emailRows(ctx.gw, paid.txRef)).length, 0);
    });

    test('a second worker on the same database sends nothing twice', async () => {
      const { db, dialect, transact } = ctx.gw.gateway.database;
      const second = startEmailWorker({
        db,
        dialect,
        transact,
        config: loadConfig({ ...env, DATABASE_URL: ctx.gw.database.url }),
        clock: ctx.gw.gateway.clock,
        log: null,
      });
      try {
        const payments = await Promise.all(
          Array.from({ length: 5 }, () =>
            payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, PAYS, { email: newCustomerEmail() }),
          ),
        );
        await eventually('every receipt', () => payments.every((paid) => mailsAbout(paid.txRef).length >= 2));
        await sleep(A_FEW_ROUNDS_MS);
        assert.deepEqual(
          payments.map((paid) => mailsAbout(paid.txRef).length),
          [2, 2, 2, 2, 2],
        );
      } finally {
        await second.stop();
      }
    });

    test('a refund that succeeds sends the customer and the merchant a refund receipt each, with escaped merchant text', async () => {
      const merchant = await ctx.gw.newMerchant('<b>Bad & Co</b>');
      const customer = newCustomerEmail();
      const paid = await payByMobileMoney(ctx.gw.url, merchant.test_secret_key, PAYS, {
        email: customer,
        customization: { title: 'Order <7>' },
      });
      const { reference } = await verify(ctx.gw, merchant.test_secret_key, paid.txRef);
      const { refundId, rows } = await refundedWithReceipts(
        ctx.gw,
        merchant.test_secret_key,
        paid.txRef,
        400,
        'One bag was <torn>',
      );
      assert.deepEqual(
        rows.map((row) => [row.kind, row.recipient]),
        [
          ['customer_refund_receipt', customer],
          ['merchant_refund_receipt', merchant.email],
        ],
      );
      await eventually(
        'both refund receipts by SMTP',
        () => smtp.mails.filter((mail) => mail.text.includes(refundId)).length >= 2,
      );
      await sleep(A_FEW_ROUNDS_MS);
      const mails = smtp.mails.filter((mail) => mail.text.includes(refundId));
      assert.equal(mails.length, 2, 'one message each, and no more after further rounds');
      const toCustomer = mails.find((mail) => mail.envelopeTo.includes(customer))!;
      const toMerchant = mails.find((mail) => mail.envelopeTo.includes(merchant.email))!;
      assert.equal(toCustomer.headers.get('subject'), 'Your refund from <b>Bad & Co</b>: MWK 400.00');
      assert.equal(toMerchant.headers.get('subject'), `Refund sent: MWK 400.00 (${paid.txRef})`);
      for (const mail of [toCustomer, toMerchant]) {
        assertReceiptContent(mail, [
          'MWK 400.00',
          'MWK 1,000.00',
          refundId,
          reference,
          paid.txRef,
          'Airtel Money (+265990xxxx00)',
          'CAT',
        ]);
        assert.ok(
          mail.html.includes('One bag was &lt;torn&gt;') &&
            mail.html.includes('Order &lt;7&gt;') &&
            mail.html.includes('&lt;b&gt;Bad &amp; Co&lt;/b&gt;'),
          mail.html,
        );
        assert.ok(!/<torn>|<b>|<7>/.test(mail.html), 'no merchant markup in the HTML');
      }
      assert.ok(toCustomer.text.includes('The money goes back the way you paid.'), toCustomer.text);
      assert.ok(toMerchant.text.includes(`Customer: Jane Banda <${customer}>`), toMerchant.text);
    });

    test("every kind of payment, and refunds of a checkout and of a direct charge, mail receipts naming the merchant's reference, with no undefined, null or NaN", async () => {
      const merchant = await ctx.gw.newMerchant('Every Kind Shop');
      const key = merchant.test_secret_key;
      const customer = newCustomerEmail();
      const byMobile = await payByMobileMoney(ctx.gw.url, key, PAYS, { email: customer });
      const byCard = await payByCard(ctx.gw.url, key, { email: customer });
      const byTransfer = await transferAtCheckout(key, customer);
      const directMobile = chargeBody({ email: customer, first_name: 'Thoko' });
      assert.equal((await initializeCharge(ctx.gw, key, directMobile)).status, 201);
      const directCard = cardBody({ email: customer });
      assert.equal((await payByDirectCard(ctx.gw, key, directCard)).status, 303);
      const directTransfer = bankTransferBody({ email: customer });
      assert.equal((await initializeBankTransfer(ctx.gw, key, directTransfer)).status, 201);
      const references = [
        byMobile.txRef,
        byCard.txRef,
        byTransfer,
        String(directMobile.charge_id),
        String(directCard.charge_id),
        String(directTransfer.charge_id),
      ];
      await eventually('two receipts for each payment', () =>
        references.every((reference) => mailsAbout(reference).length >= 2),
      );

      const refunds: Array<{ refundId: string; reference: string }> = [];
      for (const body of [
        { tx_ref: byCard.txRef, amount: 100 },
        { charge_id: directMobile.charge_id, amount: 100 },
      ]) {
        const created = await call(ctx.gw.url, '/refunds', { key, body });
        assert.equal(created.status, 201, created.text);
        refunds.push({
          refundId: String(created.body.data.refund_id),
          reference: String(body.tx_ref ?? body.charge_id),
        });
      }
      await eventually('two receipts for each refund', () =>
        refunds.every(({ refundId }) => mailsAbout(refundId).length >= 2),
      );

      const receipts = [
        ...references.map((reference) => ({
          reference,
          mails: mailsAbout(reference).filter((mail) => !mail.text.includes('rf_')),
        })),
        ...refunds.map(({ refundId, reference }) => ({ reference, mails: mailsAbout(refundId) })),
      ];
      for (const { reference, mails } of receipts) {
        assert.deepEqual(
          mails.map((mail) => mail.envelopeTo).sort(),
          [[customer], [merchant.email]],
          `one receipt each for ${reference}`,
        );
        for (const mail of mails) {
          const subject = mail.headers.get('subject')!;
          for (const content of [subject, mail.text, mail.html]) assert.doesNotMatch(content, LEAKED, content);
          assertReceiptContent(mail, [reference]);
          if (mail.envelopeTo.includes(merchant.email)) assert.ok(subject.includes(`(${reference})`), subject);
        }
      }
    });

    test('a failed payment sends no receipt', async () => {
      const customer = newCustomerEmail();
      const failed = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, DECLINED, { email: customer });
      assert.equal(
        (await verify(ctx.gw, ctx.merchant.test_secret_key, failed.txRef)).status,
        'pending',
        'the attempt failed; the session may be paid again',
      );
      await sleep(A_FEW_ROUNDS_MS);
      assert.equal(mailsTo(customer).length, 0);
      assert.equal(mailsAbout(failed.txRef).length, 0);
      assert.equal((await emailRows(ctx.gw, failed.txRef)).length, 0);
    });
  });

  describe(`test-mode receipts over SMTP by default on ${kind}`, () => {
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
    const env: Record<string, string> = { ...FAST, OUTBOX_DIR: outbox };
    let smtp: SmtpPeer;
    before(async () => {
      smtp = await startSmtp();
      env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
    });
    const ctx = useTestGateway(kind, env);
    after(async () => {
      await smtp.close();
      fs.rmSync(outbox, { recursive: true, force: true });
    });

    test("a test payment mails its receipt to the merchant only; the customer's is written to the outbox, never sent", async () => {
      const customer = newCustomerEmail();
      const title = 'Anything a test key holder wants a stranger to read';
      const paid = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, PAYS, {
        email: customer,
        customization: { title },
      });
      const { reference } = await verify(ctx.gw, ctx.merchant.test_secret_key, paid.txRef);
      const rows = await eventually('both receipts done', async () => {
        const found = await emailRows(ctx.gw, paid.txRef);
        return found.length === 2 && found.every((row) => row.status === 'sent') && found;
      });
      await sleep(A_FEW_ROUNDS_MS);

      assert.equal(
        smtp.mails.filter((mail) => mail.envelopeTo.includes(customer)).length,
        0,
        'nothing went to the customer by SMTP',
      );
      const sent = smtp.mails.filter((mail) => mail.text.includes(paid.txRef));
      assert.equal(sent.length, 1, 'one message by SMTP');
      assert.deepEqual(sent[0]!.envelopeTo, [ctx.merchant.email]);
      assert.match(sent[0]!.headers.get('subject')!, /^Payment received: MWK 1,000\.00/);

      const customerRow = rows.find((row) => row.kind === 'customer_receipt')!;
      const held = outboxMails(outbox);
      assert.deepEqual(
        [...held.keys()],
        [`${customerRow.id}.eml`],
        "the customer's receipt, and only it, is in the outbox",
      );
      const mail = held.get(`${customerRow.id}.eml`)!;
      assert.equal(mail.headers.get('to'), customer);
      assert.match(mail.headers.get('subject')!, /^Your receipt from Test Shop: MWK 1,000\.00/);
      assertReceiptContent({ envelopeTo: [], ...mail }, ['MWK 1,000.00', reference, paid.txRef, title]);
    });

    test("a test refund mails its receipt to the merchant only; the customer's is written to the outbox, never sent", async () => {
      const customer = newCustomerEmail();
      const paid = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, PAYS, { email: customer });
      await eventually(
        'the payment receipts done',
        async () => (await emailRows(ctx.gw, paid.txRef)).filter((row) => row.status === 'sent').length === 2,
      );
      const heldBefore = new Set(outboxMails(outbox).keys());
      const { refundId, rows } = await refundedWithReceipts(
        ctx.gw,
        ctx.merchant.test_secret_key,
        paid.txRef,
        300,
        'A test reason a stranger should not read',
      );
      await sleep(A_FEW_ROUNDS_MS);
      assert.equal(
        smtp.mails.filter((mail) => mail.envelopeTo.includes(customer)).length,
        0,
        'nothing went to the customer by SMTP',
      );
      const sent = smtp.mails.filter((mail) => mail.text.includes(refundId));
      assert.equal(sent.length, 1);
      assert.deepEqual(sent[0]!.envelopeTo, [ctx.merchant.email]);
      const customerRow = rows.find((row) => row.kind === 'customer_refund_receipt')!;
      const held = [...outboxMails(outbox).keys()].filter((file) => !heldBefore.has(file));
      assert.deepEqual(held, [`${customerRow.id}.eml`], "the customer's refund receipt, and only it, is in the outbox");
      assert.equal(
        outboxMails(outbox).get(`${customerRow.id}.eml`)!.headers.get('subject'),
        'Your refund from Test Shop: MWK 300.00',
      );
    });

    test('a live payment mails its receipts to the merchant and the customer, as before', async () => {
      const customer = newCustomerEmail();
      const chargeRowId = await paidLiveCharge(ctx.gw, env, ctx.merchant, customer);
      const rows = await eventually('both live receipts sent', async () => {
        const found = await chargeEmailRows(ctx.gw, chargeRowId);
        return found.length === 2 && found.every((row) => row.status === 'sent') && found;
      });
      await sleep(A_FEW_ROUNDS_MS);
      assert.deepEqual(
        rows.map((row) => [row.kind, row.recipient]),
        [
          ['customer_receipt', customer],
          ['merchant_receipt', ctx.merchant.email],
        ],
      );
      const toCustomer = smtp.mails.filter((mail) => mail.envelopeTo.includes(customer));
      assert.equal(toCustomer.length, 1, 'the customer got their receipt by SMTP');
      assert.match(toCustomer[0]!.headers.get('subject')!, /^Your receipt from Test Shop: MWK 1,000\.00/);
      assert.equal(
        smtp.mails.filter((mail) => mail.headers.get('message-id') === `<${rows[1]!.id}@lipira>`).length,
        1,
        'and the merchant theirs',
      );
      const held = [...outboxMails(outbox).keys()];
      assert.ok(
        rows.every((row) => !held.includes(`${row.id}.eml`)),
        'nothing of a live payment is held in the outbox',
      );
    });
  });

  describe(`receipt emails while the SMTP server is down on ${kind}`, () => {
    // The customer's receipt of a test payment goes by SMTP too here, so both receipts wait for the server.
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
    const env: Record<string, string> = { ...FAST, OUTBOX_DIR: outbox, TEST_RECEIPTS_TO_CUSTOMERS: 'on' };
    let port: number;
    let smtp: SmtpPeer | null = null;
    before(async () => {
      port = await freePort();
      env.SMTP_URL = `smtp://127.0.0.1:${port}`;
    });
    const ctx = useTestGateway(kind, env);
    after(async () => {
      await smtp?.close();
      fs.rmSync(outbox, { recursive: true, force: true });
    });

    test('after the last try an email is failed, with its reason kept', async () => {
      const paid = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, PAYS, {
        email: newCustomerEmail(),
      });
      const rows = await eventually('both receipts failed for good', async () => {
        const found = await emailRows(ctx.gw, paid.txRef);
        return found.length === 2 && found.every((row) => row.status === 'failed') && found;
      });
      for (const row of rows) {
        assert.equal(row.attempts, 4, 'the first try and the three retries of the schedule');
        assert.match(row.last_error ?? '', /ECONNREFUSED/);
        assert.equal(row.sent_at, null);
        assert.equal(row.locked_until, null);
      }
    });

    test('receipts queued while it is down go out once it is back, once each', async () => {
      const customer = newCustomerEmail();
      const paid = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, PAYS, { email: customer });
      await eventually('a failed try of each receipt', async () => {
        const found = await emailRows(ctx.gw, paid.txRef);
        return (
          found.length === 2 &&
          found.every((row) => row.attempts >= 1 && row.last_error !== null && row.status === 'pending')
        );
      });
      smtp = await startSmtp(port);
      const peer = smtp;
      await eventually('both receipts', () => peer.mails.filter((mail) => mail.text.includes(paid.txRef)).length >= 2);
      await sleep(A_FEW_ROUNDS_MS);
      const mails = peer.mails.filter((mail) => mail.text.includes(paid.txRef));
      assert.deepEqual(mails.map((mail) => mail.envelopeTo[0]).sort(), [customer, ctx.merchant.email].sort());
      assert.equal(peer.mails.length, 2, 'the receipts that had already failed for good stay failed');
      const rows = await emailRows(ctx.gw, paid.txRef);
      assert.ok(
        rows.every(
          (row) => row.status === 'sent' && row.sent_at !== null && row.last_error === null && row.attempts >= 2,
        ),
        JSON.stringify(rows),
      );
    });
  });

  describe(`receipt emails without SMTP on ${kind}`, () => {
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'lipira-outbox-'));
    const ctx = useTestGateway(kind, { ...FAST, OUTBOX_DIR: outbox });
    after(() => fs.rmSync(outbox, { recursive: true, force: true }));

    test('each receipt is written whole as <email id>.eml in the outbox directory', async () => {
      const customer = newCustomerEmail();
      const paid = await payByMobileMoney(ctx.gw.url, ctx.merchant.test_secret_key, PAYS, { email: customer });
      const { reference } = await verify(ctx.gw, ctx.merchant.test_secret_key, paid.txRef);
      const rows = await eventually('both receipts sent', async () => {
        const found = await emailRows(ctx.gw, paid.txRef);
        return found.length === 2 && found.every((row) => row.status === 'sent') && found;
      });
      assert.deepEqual(
        fs.readdirSync(outbox).sort(),
        rows.map((row) => `${row.id}.eml`).sort(),
        'one file per email, no temp files left',
      );
      for (const row of rows) {
        const raw = fs.readFileSync(path.join(outbox, `${row.id}.eml`), 'utf8');
        const mail = { envelopeTo: [], ...parseMessage(raw) };
        assert.equal(mail.headers.get('to'), row.recipient);
        assert.equal(mail.headers.get('subject'), row.subject);
        assert.match(mail.headers.get('from') ?? '', /receipts@lipira\.localhost/);
        assert.equal(mail.headers.get('message-id'), `<${row.id}@lipira>`);
        assertReceiptContent(mail, ['MWK 1,000.00', reference, paid.txRef, 'Airtel Money (+265990xxxx00)']);
      }
      assert.deepEqual(
        rows.map((row) => row.recipient),
        [customer, ctx.merchant.email],
      );
    });
  });
}
