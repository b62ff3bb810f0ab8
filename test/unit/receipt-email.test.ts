import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { composeReceipt, paymentFacts } from '../../src/emails/receipt-email.ts';

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
    authorization: { channel: 'Mobile Money', card_number: null, expiry: null, brand: null, provider: 'Airtel Money', mobile_number: '+265990xxxx00', completed_at: '2025-01-05T14:03:00.000000Z' },
    ...overrides,
  };
}

const PAID_AT = Date.UTC(2025, 0, 5, 14, 3);

describe('receipt emails', () => {
  test('the customer receipt names the merchant, amount, references, date and masked method in both bodies', () => {
    const receipt = composeReceipt('customer_receipt', paymentFacts('Test Shop', payload(), PAID_AT, 'UTC'));
    assert.equal(receipt.subject, 'Your receipt from Test Shop: MWK 1,000.00');
    for (const body of [receipt.text, receipt.html]) {
      for (const part of ['Test Shop', 'MWK 1,000.00', '12345678901', 'order-7', '5 January 2025 at 14:03 UTC', 'Airtel Money (+265990xxxx00)', 'Order 7']) {
        assert.ok(body.includes(part), `${part} in ${body}`);
      }
    }
    assert.ok(!receipt.text.includes('jane@example.com'), 'the customer is not told their own address');
  });

  test('the date is in the gateway\'s time zone, named', () => {
    for (const [zone, shown] of [['Africa/Blantyre', '5 January 2025 at 16:03 CAT'], ['Europe/London', '5 January 2025 at 14:03 GMT'], ['Asia/Kolkata', '5 January 2025 at 19:33 GMT+5:30']]) {
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
    const card = { channel: 'Card', card_number: '424242******4242', expiry: '2030-12', brand: 'VISA', provider: null, mobile_number: null };
    const receipt = composeReceipt('customer_receipt', paymentFacts('Test Shop', payload({ authorization: card, amount: 1234567, currency: 'GBP' }), PAID_AT, 'UTC'));
    assert.ok(receipt.text.includes('Payment method: VISA 424242******4242'));
    assert.ok(receipt.text.includes('Amount: GBP 1,234,567.00'));
  });

  test('merchant and customer text is escaped in the HTML, kept as typed in the text', () => {
    const facts = paymentFacts('<b>Bad & Co</b>', payload({ customization: { title: '<script>alert("x")</script>' }, first_name: '<i>Eve</i>' }), PAID_AT, 'UTC');
    for (const kind of ['customer_receipt', 'merchant_receipt'] as const) {
      const receipt = composeReceipt(kind, facts);
      assert.ok(!/<script|<b>|<i>/.test(receipt.html), receipt.html);
      assert.ok(receipt.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
      assert.ok(receipt.html.includes('&lt;b&gt;Bad &amp; Co&lt;/b&gt;'));
      assert.ok(receipt.text.includes('<script>alert("x")</script>'));
    }
  });

  test('what the payment lacks is left out rather than shown empty', () => {
    const facts = paymentFacts('Test Shop', payload({ customization: { title: null }, authorization: null, last_name: null, email: null }), PAID_AT, 'UTC');
    const merchant = composeReceipt('merchant_receipt', facts);
    assert.ok(!merchant.text.includes('For:'));
    assert.ok(!merchant.text.includes('Payment method:'));
    assert.ok(merchant.text.includes('Customer: Jane\n'));
    assert.ok(!merchant.text.includes('null'));
  });
});
