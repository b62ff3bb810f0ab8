import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { CheckoutClient, type PageResponse } from './checkout-client.ts';
import { uniqueRef } from './fixtures.ts';
import { call, type ApiResponse, type TestGateway } from './gateway.ts';

/** The sandbox's cards (docs/integrate/api-reference.md#sandbox-test-instruments) as merchants type them. */
export const TEST_CARD_NUMBERS = {
  visaSuccess: '4242 4242 4242 4242',
  mastercardSuccess: '5555 5555 5555 4444',
  declined: '4000 0000 0000 0002',
} as const;

/** A direct card charge request (docs/integrate/api-reference.md#card-charges) with the Visa success card; override any field. */
export function cardBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    card_number: TEST_CARD_NUMBERS.visaSuccess,
    expiry: '12/40',
    cvv: '123',
    cardholder_name: 'Chikondi Banda',
    amount: '1000',
    currency: 'MWK',
    charge_id: uniqueRef('card'),
    redirect_url: 'https://shop.example/orders/1/paid?order=1',
    ...overrides,
  };
}

export const chargeCard = (gw: TestGateway, key: string | null, body: unknown): Promise<ApiResponse> =>
  call(gw.url, '/charge-card/payments', { key, body });
export const verifyCard = (gw: TestGateway, key: string | null, chargeId: string): Promise<ApiResponse> =>
  call(gw.url, `/charge-card/verify/${chargeId}`, { key });

/** The 3-D Secure page a `3ds_auth_link` opens, in a client that keeps its cookie and form token. */
export async function openThreeDs(
  gw: TestGateway,
  link: string,
): Promise<{ client: CheckoutClient; path: string; page: PageResponse }> {
  const client = new CheckoutClient(gw.url);
  const url = new URL(link);
  const path = url.pathname + url.search;
  return { client, path, page: await client.get(path) };
}

/** Starts a card charge and types `otp` on its 3-D Secure page; the form's answer (a 303 to redirect_url once the charge ended). */
export async function payByDirectCard(
  gw: TestGateway,
  key: string,
  body: Record<string, unknown>,
  otp = '1234',
): Promise<PageResponse> {
  const started = await chargeCard(gw, key, body);
  assert.equal(started.status, 200, started.text);
  const { client, path, page } = await openThreeDs(gw, started.body['3ds_auth_link']);
  assert.equal(page.status, 200, page.text.slice(0, 300));
  return client.post(path, { otp });
}

/** A CVV no id, amount or time of the suites contains as a number of its own. */
export const MARKED_CVV = '7391';

/** `digits` as a value of its own: not a part of an id, a UUID (hyphenated hex) or a longer number. */
export const standalone = (digits: string) => `(?<![\\w-])${digits}(?![\\w-])`;

/** Every row of every table, as text. */
export async function dumpAllTables(gw: TestGateway): Promise<string> {
  const db = gw.gateway.database.db;
  const tables =
    gw.database.kind === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map(
          (row) => row.name,
        )
      : (
          await sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)
        ).rows.map((row) => row.name);
  let text = '';
  for (const table of tables) text += JSON.stringify((await sql`select * from ${sql.table(table)}`.execute(db)).rows);
  return text;
}
