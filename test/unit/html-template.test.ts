import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderPaymentPage } from '../../src/checkout/page/views.ts';
import { html, joinHtml, raw } from '../../src/web/html.ts';

describe('The html tag', () => {
  test('each markup character of a value becomes an entity', () => {
    const cases: Array<[string, string]> = [
      ['&', '&amp;'],
      ['<', '&lt;'],
      ['>', '&gt;'],
      ['"', '&quot;'],
      ["'", '&#39;'],
    ];
    for (const [ch, entity] of cases) assert.equal(String(html`<p>${ch}</p>`), `<p>${entity}</p>`);
    assert.equal(
      String(html`${`<b class="x">Tom & Jerry's</b>`}`),
      '&lt;b class=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;',
    );
  });

  test('characters beyond ASCII become numeric references, one per code point', () => {
    assert.equal(String(html`${'Café · ☕ 😀'}`), 'Caf&#233; &#183; &#9749; &#128512;');
  });

  test("the template's own text is kept as it is", () => {
    assert.equal(String(html`<p class="a">Tom & Jerry · ${'x'}</p>`), '<p class="a">Tom & Jerry · x</p>');
  });

  test('a value cannot leave a quoted attribute', () => {
    const title = `" onmouseover="alert(1)`;
    assert.equal(String(html`<a title="${title}">`), '<a title="&quot; onmouseover=&quot;alert(1)">');
    assert.equal(String(html`<a title='${"' x='1"}'>`), "<a title='&#39; x=&#39;1'>");
  });

  test('nested html is not escaped twice', () => {
    const inner = html`<b>${'a & b'}</b>`;
    assert.equal(String(html`<p>${inner}</p>`), '<p><b>a &amp; b</b></p>');
    assert.equal(String(html`${html`${html`${'<'}`}`}`), '&lt;');
  });

  test('arrays join with nothing between, their strings escaped and their html kept', () => {
    const items = ['<a>', 'b'].map((item) => html`<li>${item}</li>`);
    assert.equal(String(html`<ul>${items}</ul>`), '<ul><li>&lt;a&gt;</li><li>b</li></ul>');
    assert.equal(String(html`${['<', html`<br>`, [1, '&']]}`), '&lt;<br>1&amp;');
    assert.equal(String(html`<ul>${[]}</ul>`), '<ul></ul>');
  });

  test('null, undefined and false render nothing; numbers render as text', () => {
    const none = null;
    assert.equal(String(html`[${none}${undefined}${false}]`), '[]');
    assert.equal(String(html`${0} ${1.5} ${-2}`), '0 1.5 -2');
    const shown = (on: boolean) => html`<p${on && html` hidden`}>`;
    assert.equal(String(shown(true)), '<p hidden>');
    assert.equal(String(shown(false)), '<p>');
  });

  test('raw markup is kept as it is; joinHtml puts a separator between items', () => {
    assert.equal(String(html`<div>${raw('<svg><path d="M0"/></svg>')}</div>`), '<div><svg><path d="M0"/></svg></div>');
    assert.equal(String(joinHtml([html`<i>a</i>`, 'b&'], '; ')), '<i>a</i>; b&amp;');
    assert.equal(String(joinHtml([html`<i>a</i>`, html`<i>b</i>`], html`<br>`)), '<i>a</i><br><i>b</i>');
  });

  test('a payment page for a merchant whose name is not ASCII is ASCII throughout', () => {
    const page = String(
      renderPaymentPage(
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
      ),
    );
    assert.equal(Buffer.byteLength(page), page.length, 'every character of the page is one byte in UTF-8');
    assert.match(page, /<title>Pay MWK 1,000\.00 &#183; Caf&#233; &#209;khata &#9749;<\/title>/);
    assert.match(page, /Chakudya &#8212; lunch/);
  });
});
