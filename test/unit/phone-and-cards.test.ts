import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCardProblem, maskCardNumber, passesLuhn, readCard } from '../../src/shared/cards.ts';
import { maskMsisdn, parseMalawiMobile } from '../../src/shared/phone.ts';

test('Malawian numbers in every common form, with the operator from the prefix', () => {
  for (const input of [
    '0991234567',
    '991234567',
    '265991234567',
    '+265991234567',
    '+265 99 123 4567',
    '099-123-4567',
  ]) {
    assert.deepEqual(parseMalawiMobile(input), { msisdn: '265991234567', operator: 'airtel' }, input);
  }
  assert.equal(parseMalawiMobile('0981234567')?.operator, 'airtel');
  assert.equal(parseMalawiMobile('0881234567')?.operator, 'tnm');
  assert.equal(parseMalawiMobile('0899817565')?.operator, 'tnm');
  for (const bad of ['', '0111234567', '09912345', '26599123456789', '+44991234567', 'abc'])
    assert.equal(parseMalawiMobile(bad), null, bad);
});

test('masked numbers keep the operator prefix and last two digits', () => {
  assert.equal(maskMsisdn('265990000000'), '+265990xxxx00');
  assert.equal(maskMsisdn('265899817565'), '+265899xxxx65');
});

test('cards: shape, brand, expiry, CVV; masked to first six and last four', () => {
  const now = new Date(Date.UTC(2026, 10, 21));
  assert.deepEqual(readCard('4242 4242 4242 4242', '12/30', '123', now), {
    number: '4242424242424242',
    brand: 'VISA',
    expiry: '2030-12',
  });
  assert.deepEqual(readCard('5555555555554444', '1/2031', '1234', now), {
    number: '5555555555554444',
    brand: 'MASTERCARD',
    expiry: '2031-01',
  });
  assert.ok(!isCardProblem(readCard('4242424242424242', '11/26', '123', now)), 'the current month is still valid');
  assert.equal(
    (readCard('4242424242424242', '10/26', '123', now) as { message: string }).message,
    'This card has expired.',
  );
  assert.equal((readCard('378282246310005', '12/30', '123', now) as { field: string }).field, 'card_number');
  assert.equal((readCard('4242424242424242', '12/30', '12', now) as { field: string }).field, 'cvv');
  assert.equal(maskCardNumber('4242424242424242'), '424242******4242');
  assert.equal(passesLuhn('4242424242424242'), true);
  assert.equal(passesLuhn('4242424242424241'), false);
});
