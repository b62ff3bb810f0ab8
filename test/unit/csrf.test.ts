import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { csrfTokenMatches } from '../../src/web/csrf.ts';

const TOKEN = 'FuzzCsrfFuzzCsrfFuzzCsrfFuzzCsrf';
const withCookie = (token: string) => ({ headers: { cookie: `lipira_csrf=${token}` } }) as unknown as FastifyRequest;

test('a form token is compared with the cookie as bytes: the same token matches, any other does not', () => {
  assert.equal(csrfTokenMatches(withCookie(TOKEN), TOKEN), true);
  assert.equal(csrfTokenMatches(withCookie(TOKEN), `${TOKEN.slice(1)}x`), false);
  assert.equal(csrfTokenMatches(withCookie(TOKEN), undefined), false);
  assert.equal(csrfTokenMatches(withCookie(TOKEN), ['FuzzCsrf']), false);
});

test('a token of as many characters but more bytes is refused, not thrown on (fuzz seed 591058798)', () => {
  const wider = 'é'.repeat(TOKEN.length);
  assert.equal(wider.length, TOKEN.length);
  assert.equal(csrfTokenMatches(withCookie(TOKEN), wider), false);
});
