import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adviceSentence, failureAdvice, triesLeftText } from '../../src/checkout/page/failure-advice.ts';

describe('what the hosted page tells a customer whose attempt failed', () => {
  test('each failure code of a card says what happened and what to do next, in plain words', () => {
    const card = (failure_code: string | null) =>
      adviceSentence(failureAdvice({ channel: 'card', operator: null, failure_code }));
    assert.equal(card('declined'), 'Your card was declined — try another card or pay with mobile money.');
    assert.equal(
      card('wrong_otp'),
      'The one-time code was not right — try again and enter the code your bank sent you.',
    );
    assert.equal(
      card('superseded'),
      'This card payment gave way to another payment you started — finish that one, or try again.',
    );
    assert.equal(card(null), 'The card payment did not go through — try again, or use another card or mobile money.');
  });

  test("a wallet's failure names the operator where it matters; a code without words yet gets the general advice", () => {
    const wallet = (failure_code: string | null, operator: 'airtel' | 'tnm' = 'airtel') =>
      adviceSentence(failureAdvice({ channel: 'mobile_money', operator, failure_code }));
    assert.equal(wallet('insufficient_funds'), 'Not enough money in the wallet — top up or use another number.');
    assert.equal(wallet('wrong_pin'), 'The PIN was wrong — try again and enter your mobile money PIN on your phone.');
    assert.equal(
      wallet('issuer_error', 'tnm'),
      'TNM Mpamba could not take the payment just now — try again in a moment, or use another number.',
    );
    assert.equal(
      wallet('a_code_from_a_new_connector'),
      'The mobile money payment did not go through — try again, or use another number.',
    );
  });

  test('tries left', () => {
    assert.deepEqual([3, 2, 1].map(triesLeftText), ['3 tries left', '2 tries left', 'Last try']);
  });
});
