import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { composeReceipt, composeRefundReceipt, paymentFacts, refundFacts } from '../../src/emails/receipt-email.ts';

/** A successful checkout event body, as `emitCheckoutPayment` writes it (the fields a receipt reads). */
function payload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_type: 'checkout.payment',
    status: 'success',
    tx_ref: 'order-7',
    reference: '12345678901',
    charge_id: 'ch_abc',
    amount: 1000,
    currency: 'MWK',
    charge: 30,
    first_name: 'Jane',
    last_name: 'Banda',
    email: 'jane@example.com',
    customization: { title: 'Order 7', description: 'Two bags of maize', logo: null },
    authorization: {
      channel: 'Mobile Money',
      card_number: null,
      expiry: null,
      brand: null,
      provider: 'Airtel Money',
      mobile_number: '+265990xxxx00',
      completed_at: '2025-01-05T14:03:00.000000Z',
    },
    ...overrides,
  };
}

const PAID_AT = Date.UTC(2025, 0, 5, 14, 3);

describe('receipt emails', () => {
  test('the customer receipt names the merchant, amount, references, date and masked method in both bodies', () => {
    const receipt = composeReceipt('customer_receipt', paymentFacts('Test Shop', payload(), PAID_AT, 'UTC'));
    assert.equal(receipt.subject, 'Your receipt from Test Shop: MWK 1,000.00');
    for (const body of [receipt.text, receipt.html]) {
      for (const part of [
        'Test Shop',
        'MWK 1,000.00',
        '12345678901',
        'order-7',
        '5 January 2025 at 14:03 UTC',
        'Airtel Money (+265990xxxx00)',
        'Order 7',
      ]) {
        assert.ok(body.includes(part), `${part} in ${body}`);
      }
    }
    assert.ok(!receipt.text.includes('jane@example.com'), 'the customer is not told their own address');
  });

  test("the date is in the gateway's time zone, named", () => {
    for (const [zone, shown] of [
      ['Africa/Blantyre', '5 January 2025 at 16:03 CAT'],
      ['Europe/London', '5 January 2025 at 14:03 GMT'],
      ['Asia/Kolkata', '5 January 2025 at 19:33 GMT+5:30'],
    ]) {
      const receipt = composeReceipt('customer_receipt', paymentFacts('Test Shop', payload(), PAID_AT, zone!));
      assert.ok(receipt.text.includes(`Date: ${shown}\n`), receipt.text);
    }
  });

  test('the merchant receipt names the customer and carries tx_ref in its subject', () => {
    const receipt = composeReceipt('merchant_receipt', paymentFacts('Test Shop', payload(), PAID_AT, 'UTC'));
    assert.equal(receipt.subject, 'Payment received: MWK 1,000.00 (order-7)');
    assert.ok(receipt.text.includes('Customer: Jane Banda <jane@example.com>'));
    assert.ok(receipt.html.includes('Jane Banda &lt;jane@example.com&gt;'));
  });

  test('a card shows brand and masked number; amounts are grouped with two decimals', () => {
    const card = {
      channel: 'Card',
      card_number: '424242******4242',
      expiry: '2030-12',
      brand: 'VISA',
      provider: null,
      mobile_number: null,
    };
    const receipt = composeReceipt(
      'customer_receipt',
      paymentFacts('Test Shop', payload({ authorization: card, amount: 1234567, currency: 'GBP' }), PAID_AT, 'UTC'),
    );
    assert.ok(receipt.text.includes('Payment method: VISA 424242******4242'));
    assert.ok(receipt.text.includes('Amount: GBP 1,234,567.00'));
  });

  test('merchant and customer text is escaped in the HTML, kept as typed in the text', () => {
    const facts = paymentFacts(
      '<b>Bad & Co</b>',
      payload({ customization: { title: '<script>alert("x")</script>' }, first_name: '<i>Eve</i>' }),
      PAID_AT,
      'UTC',
    );
    for (const kind of ['customer_receipt', 'merchant_receipt'] as const) {
      const receipt = composeReceipt(kind, facts);
      assert.ok(!/<script|<b>|<i>/.test(receipt.html), receipt.html);
      assert.ok(receipt.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
      assert.ok(receipt.html.includes('&lt;b&gt;Bad &amp; Co&lt;/b&gt;'));
      assert.ok(receipt.text.includes('<script>alert("x")</script>'));
    }
  });

  test('what the payment lacks is left out rather than shown empty', () => {
    const facts = paymentFacts(
      'Test Shop',
      payload({ customization: { title: null }, authorization: null, last_name: null, email: null }),
      PAID_AT,
      'UTC',
    );
    const merchant = composeReceipt('merchant_receipt', facts);
    assert.ok(!merchant.text.includes('For:'));
    assert.ok(!merchant.text.includes('Payment method:'));
    assert.ok(merchant.text.includes('Customer: Jane\n'));
    assert.ok(!merchant.text.includes('null'));
  });
});

const MOBILE = {
  channel: 'Mobile Money',
  card_number: null,
  expiry: null,
  brand: null,
  provider: 'TNM Mpamba',
  mobile_number: '+265899xxxx65',
  completed_at: '2025-01-05T14:03:00.000000Z',
};
const CARD = {
  channel: 'Card',
  card_number: '424242******4242',
  expiry: '2030-12',
  brand: 'VISA',
  provider: null,
  mobile_number: null,
  completed_at: '2025-01-05T14:03:00.000000Z',
};
const TRANSFER = {
  channel: 'Mobile Bank Transfer',
  card_number: null,
  expiry: null,
  brand: null,
  provider: null,
  mobile_number: null,
  payer_bank_uuid: null,
  payer_bank: 'National Bank of Malawi',
  payer_account_number: '******4321',
  payer_account_name: 'Test Payer',
  completed_at: '2025-01-05T14:03:00.000000Z',
};

/** A direct charge's `api.charge.payment` body, as `emitChargeOutcome` writes it: no `tx_ref`, the merchant's `charge_id`, no customization. */
function directPayload(
  authorization: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    event_type: 'api.charge.payment',
    charge_id: 'ORDER-2024-0042',
    chargeId: 'ORDER-2024-0042',
    reference: '48213950671',
    status: 'success',
    failure_reason: null,
    amount: 25000,
    currency: 'MWK',
    charge: 750,
    mode: 'test',
    type: 'Direct API Payment',
    first_name: null,
    last_name: null,
    email: null,
    mobile: null,
    mobile_money: null,
    authorization,
    created_at: '2025-01-05T14:00:00.000000Z',
    updated_at: '2025-01-05T14:03:00.000000Z',
    ...overrides,
  };
}

/** An `api.refund` body, as `emitRefundOutcome` writes it: `tx_ref` and `customization` null for a direct charge. */
function refundPayload(paid: Record<string, unknown>): Record<string, unknown> {
  const checkout = paid.event_type === 'checkout.payment';
  return {
    event_type: 'api.refund',
    refund_id: 'rf_7Qm2JcX0aLk4TsVw9EyB',
    charge_id: paid.charge_id,
    chargeId: paid.charge_id,
    tx_ref: checkout ? paid.tx_ref : null,
    reference: paid.reference,
    status: 'success',
    failure_reason: null,
    amount: 400,
    currency: paid.currency,
    reason: null,
    payment_amount: paid.amount,
    refunded_amount: 400,
    refund_status: 'partial',
    mode: 'test',
    type: 'Refund',
    first_name: paid.first_name,
    last_name: paid.last_name,
    email: paid.email,
    customization: checkout ? paid.customization : null,
    authorization: paid.authorization,
    created_at: '2025-01-06T09:00:00.000000Z',
    completed_at: '2025-01-06T09:00:03.000000Z',
    updated_at: '2025-01-06T09:00:03.000000Z',
  };
}

const PAYMENTS: Array<[string, Record<string, unknown>, string]> = [
  ['a checkout paid by mobile money', payload(), 'order-7'],
  ['a checkout paid by card', payload({ authorization: CARD }), 'order-7'],
  ['a checkout paid by bank transfer', payload({ authorization: TRANSFER }), 'order-7'],
  [
    'a direct mobile money charge',
    directPayload(MOBILE, { mobile: '+265899xxxx65', email: 'thoko@example.com' }),
    'ORDER-2024-0042',
  ],
  ['a direct card charge', directPayload(CARD, { first_name: 'Chikondi', last_name: 'Banda' }), 'ORDER-2024-0042'],
  ['a direct bank transfer', directPayload(TRANSFER, { first_name: 'Chisomo' }), 'ORDER-2024-0042'],
];

const LEAKED = /undefined|null|NaN/;

describe("every receipt kind names the merchant's reference and shows no undefined, null or NaN", () => {
  for (const [what, paid, merchantReference] of PAYMENTS) {
    test(`${what}: the payment's receipts and its refund's`, () => {
      const facts = paymentFacts('Test Shop', paid, PAID_AT, 'UTC');
      const refund = refundFacts('Test Shop', refundPayload(paid), PAID_AT, 'UTC');
      const receipts = [
        ...(['customer_receipt', 'merchant_receipt'] as const).map(
          (kind) => [kind, composeReceipt(kind, facts)] as const,
        ),
        ...(['customer_refund_receipt', 'merchant_refund_receipt'] as const).map(
          (kind) => [kind, composeRefundReceipt(kind, refund)] as const,
        ),
      ];
      for (const [kind, receipt] of receipts) {
        for (const [part, content] of Object.entries(receipt)) {
          assert.doesNotMatch(content, LEAKED, `${kind} ${part}: ${content}`);
          assert.ok(
            content.includes(merchantReference) || (part === 'subject' && kind.startsWith('customer')),
            `${kind} ${part} names ${merchantReference}: ${content}`,
          );
        }
      }
    });
  }

  test("a direct charge's merchant receipt names its charge_id where a checkout's names its tx_ref", () => {
    const receipt = composeReceipt('merchant_receipt', paymentFacts('Test Shop', directPayload(CARD), PAID_AT, 'UTC'));
    assert.equal(receipt.subject, 'Payment received: MWK 25,000.00 (ORDER-2024-0042)');
    assert.ok(receipt.text.includes('Charge (charge_id): ORDER-2024-0042\n'), receipt.text);
    assert.ok(!receipt.text.includes('tx_ref'), receipt.text);
  });
});
