import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderPaymentPage } from '../../src/checkout/page/views.ts';
import { escapeHtml } from '../../src/shared/html.ts';

describe('HTML escaping', () => {
  test('markup characters become entities', () => {
    assert.equal(
      escapeHtml(`<b class="x">Tom & Jerry's</b>`),
      '&lt;b class=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;',
    );
  });

  test('characters beyond ASCII become numeric references, one per code point', () => {
    assert.equal(escapeHtml('Café · ☕ 😀'), 'Caf&#233; &#183; &#9749; &#128512;');
  });

  test('a payment page for a merchant whose name is not ASCII is ASCII throughout', () => {
    const page = renderPaymentPage(
      {
        mode: 'live',
        merchantName: 'Café Ñkhata ☕',
        merchantEmail: 'café@example.com',
        currency: 'MWK',
        title: 'Chakudya — lunch',
        description: null,
        logoUrl: null,
        amountText: 'MWK 1,000.00',
        customerName: 'Chikondi Phiri',
        reference: '12345678901',
        txRef: 'order-1',
      },
      { sessionId: 'cs_1', csrfToken: 'token' },
      {
        error: 'Not enough money in the wallet — top up or use another number.',
        triesLeft: 'Last try',
        method: 'mobile_money',
        mobile: '',
        operator: '',
        testInstruments: null,
      },
    );
    assert.equal(Buffer.byteLength(page), page.length, 'every character of the page is one byte in UTF-8');
    assert.match(page, /<title>Pay MWK 1,000\.00 &#183; Caf&#233; &#209;khata &#9749;<\/title>/);
    assert.match(page, /Chakudya &#8212; lunch/);
  });
});
