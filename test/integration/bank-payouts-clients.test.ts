import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { uniqueRef } from '../helpers/fixtures.ts';
import { call, useTestGateway, type ApiResponse } from '../helpers/gateway.ts';
import { NBM_UUID } from '../helpers/bank-payouts.ts';
import { eventually, fundMainBalance } from '../helpers/mobile-money.ts';

/**
 * The bank payout calls of two published clients, as each puts them on the wire, and what each
 * then reads: the Python SDK (mzati-paychangu/paychangu_python_sdk, src/paychangu/resources/
 * payouts.py over _http.py's requests session) and the Go client (santinalbrowns/paychangu,
 * payout.go over client.go, decoding into types.go's structs). Before bank payouts existed both
 * got 404 "Route not found."; the Go client's amounts are written "%.2f".
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** How Go's encoding/json decodes into the client's field types: a mismatch is an error for the whole answer. */
const go = {
  string: (v: unknown) => typeof v === 'string',
  /** `*string`, `*time.Time`: null, or the value. */
  nullableString: (v: unknown) => v === null || typeof v === 'string',
  float64: (v: unknown) => typeof v === 'number',
  int: (v: unknown) => typeof v === 'number' && Number.isInteger(v),
  time: (v: unknown) => typeof v === 'string' && RFC3339.test(v),
  nullableTime: (v: unknown) => v === null || (typeof v === 'string' && RFC3339.test(v)),
};

const goObject = (fields: Record<string, (v: unknown) => boolean>) => (v: unknown) =>
  typeof v === 'object' &&
  v !== null &&
  Object.entries(fields).every(([field, decodes]) => decodes((v as Record<string, unknown>)[field]));

/** types.go `BankPayoutTransactionDetails`, field by field. */
const goBankPayout = goObject({
  charge_id: go.string,
  ref_id: go.string,
  trans_id: go.nullableString,
  currency: go.string,
  amount: go.float64,
  first_name: go.nullableString,
  last_name: go.nullableString,
  email: go.nullableString,
  type: go.string,
  trace_id: go.nullableString,
  status: go.string,
  mobile: go.string,
  attempts: go.int,
  mode: go.string,
  created_at: go.time,
  completed_at: go.nullableTime,
  event_type: go.string,
  transaction_charges: goObject({ currency: go.string, amount: go.string }),
  recipient_account_details: goObject({
    bank_uuid: go.string,
    bank_name: go.string,
    account_name: go.string,
    account_number: go.string,
  }),
});

/** client.go `isSuccessStatus`, after its 2xx check. */
function assertGoAccepts(res: ApiResponse): void {
  assert.ok(res.status >= 200 && res.status < 300, res.text);
  assert.ok(['success', 'successful'].includes(res.body.status), res.text);
}

for (const kind of DATABASE_KINDS) {
  describe(`bank payouts from published clients on ${kind}`, () => {
    const ctx = useTestGateway(kind, { SANDBOX_MOBILE_DELAY: '100ms', WORKER_INTERVAL: '50ms' });

    test('the Python SDK: banks(), initiate_bank() with a string amount, bank_details(), list_bank_payouts()', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000);
      // _http.py: one requests.Session with Accept, Content-Type and Authorization on every request, GETs included.
      const headers = {
        'User-Agent': 'python-requests/2.34.2',
        'Accept-Encoding': 'gzip, deflate',
        Accept: 'application/json',
        'Content-Type': 'application/json',
        Authorization: `Bearer ${merchant.test_secret_key}`,
      };
      const get = (path: string) => call(ctx.gw.url, path, { headers });

      // `banks(currency="MWK")`: requests encodes params into the query.
      const banks = await get('/direct-charge/payouts/supported-banks?currency=MWK');
      assert.equal(banks.status, 200, banks.text);
      const nbm = banks.body.data.find((bank: { name: string }) => bank.name === 'National Bank of Malawi');
      assert.equal(nbm.uuid, NBM_UUID);

      // `initiate_bank(bank_uuid=…, amount=2500, charge_id=…, bank_account_name=…, bank_account_number=…)`:
      // payout_method defaults to "bank_transfer", None fields are dropped, the amount is stringified
      // (_utils.py `stringify_amount`), and json.dumps writes ", " and ": ".
      const chargeId = uniqueRef('py-bank');
      const rawBody = `{"payout_method": "bank_transfer", "bank_uuid": "${nbm.uuid}", "amount": "2500", "charge_id": "${chargeId}", "bank_account_name": "Madalitso Kamwendo", "bank_account_number": "1001000010"}`;
      const created = await call(ctx.gw.url, '/direct-charge/payouts/initialize', { method: 'POST', headers, rawBody });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.transaction.charge_id, chargeId);
      assert.equal(created.body.data.transaction.status, 'pending');
      assert.equal(created.body.data.transaction.amount, 2500);

      const ended = await eventually('the payout to end', async () => {
        const res = await get(`/direct-charge/payouts/${chargeId}/details`);
        return res.body?.data?.status === 'pending' ? null : res;
      });
      assert.equal(ended.status, 200);
      assert.equal(ended.body.status, 'successful');
      assert.equal(ended.body.data.status, 'success');

      const list = await get('/direct-charge/payouts');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.data.data.map((payout: { charge_id: string }) => payout.charge_id),
        [chargeId],
      );
    });

    test('the Go client: GetSupportedBanks, InitiateBankPayout with a "%.2f" amount, GetBankPayoutDetails, ListBankPayouts, each decoded into its structs', async () => {
      const merchant = await ctx.gw.newMerchant();
      await fundMainBalance(ctx.gw, merchant, 5000);
      // client.go `do`: Accept and Authorization always, Content-Type with a body; Go's own User-Agent.
      const headers = {
        'User-Agent': 'Go-http-client/1.1',
        Accept: 'application/json',
        Authorization: `Bearer ${merchant.test_secret_key}`,
      };
      const get = (path: string) => call(ctx.gw.url, path, { headers });

      // `GetSupportedBanks("MWK")`: queryPath(url.Values{"currency": {"MWK"}}), decoded into []Bank{UUID, Name}.
      const banks = await get('/direct-charge/payouts/supported-banks?currency=MWK');
      assertGoAccepts(banks);
      assert.ok(banks.body.data.every(goObject({ uuid: go.string, name: go.string })));

      // `InitiateBankPayout(BankPayoutRequest{PayoutMethod: "bank_transfer", BankUUID: …, Amount: 2500, …})`:
      // json.Marshal of payout.go's anonymous struct, in its field order, the amount as "%.2f", empty names left out.
      const chargeId = uniqueRef('go-bank');
      const rawBody = `{"payout_method":"bank_transfer","bank_uuid":"${NBM_UUID}","amount":"2500.00","charge_id":"${chargeId}","bank_account_name":"Madalitso Kamwendo","bank_account_number":"1001000010","email":"accounts@mango.example"}`;
      const created = await call(ctx.gw.url, '/direct-charge/payouts/initialize', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        rawBody,
      });
      assertGoAccepts(created);
      assert.ok(goBankPayout(created.body.data.transaction), created.text);
      assert.equal(created.body.data.transaction.amount, 2500, '"2500.00" is 2500 kwacha');
      assert.deepEqual(created.body.data.transaction.transaction_charges, { currency: 'MWK', amount: '25.00' });

      const ended = await eventually('the payout to end', async () => {
        const res = await get(`/direct-charge/payouts/${encodeURIComponent(chargeId)}/details`);
        return res.body?.data?.status === 'pending' ? null : res;
      });
      assertGoAccepts(ended);
      assert.ok(goBankPayout(ended.body.data), ended.text);
      assert.equal(ended.body.data.status, 'success');

      // `ListBankPayouts()` → PaginatedBankPayouts{CurrentPage, TotalPages, PerPage int; NextPageURL *string; Data}.
      const list = await get('/direct-charge/payouts');
      assertGoAccepts(list);
      assert.ok(
        goObject({ current_page: go.int, total_pages: go.int, per_page: go.int, next_page_url: go.nullableString })(
          list.body.data,
        ),
        list.text,
      );
      assert.ok(list.body.data.data.every(goBankPayout), list.text);

      // A fraction of a kwacha is still refused, with the Laravel-style message the client prints.
      const fraction = await call(ctx.gw.url, '/direct-charge/payouts/initialize', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        rawBody: rawBody.replace('"2500.00"', '"2500.50"').replace(chargeId, `${chargeId}-2`),
      });
      assert.equal(fraction.status, 400, fraction.text);
      assert.deepEqual(fraction.body.message, { amount: ['The amount must be an integer.'] });
    });
  });
}
