import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { recordEvent } from '../helpers/events.ts';
import { TIMESTAMP } from '../helpers/fixtures.ts';
import { assertFieldError, call, useTestGateway } from '../helpers/gateway.ts';

const DAY = 86_400_000;

for (const kind of DATABASE_KINDS) {
  describe(`the event log (${kind})`, () => {
    const ctx = useTestGateway(kind);

    test("lists the key's own events in its mode, latest first, each with the body its webhook carries", async () => {
      const { gw, merchant } = ctx;
      const other = await gw.newMerchant('Other Shop');
      const db = gw.gateway.database;
      const now = Date.parse('2026-11-20T10:00:00Z');
      const first = await recordEvent(db, merchant.id, { now, payload: { charge_id: 'first' } });
      const refund = await recordEvent(db, merchant.id, {
        now: now + 1000,
        type: 'api.refund',
        payload: { charge_id: 'r' },
      });
      await recordEvent(db, merchant.id, { now: now + 2000, mode: 'live' });
      await recordEvent(db, other.id, { now: now + 3000 });

      const res = await call(gw.url, '/events', { key: merchant.test_secret_key });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'success');
      assert.deepEqual(
        res.body.data.data.map((event: { id: string }) => event.id),
        [refund, first],
      );
      assert.equal(res.body.data.total, 2);
      assert.equal(res.body.data.current_page, 1);
      assert.equal(res.body.data.next_page_url, null);
      const [latest] = res.body.data.data;
      assert.equal(latest.type, 'api.refund');
      assert.equal(latest.mode, 'test');
      assert.match(latest.created_at, TIMESTAMP);
      assert.deepEqual(latest.payload, {
        event_type: 'api.refund',
        status: 'success',
        amount: 1000,
        currency: 'MWK',
        charge_id: 'r',
      });

      const live = await call(gw.url, '/events', { key: merchant.live_secret_key });
      assert.equal(live.body.data.total, 1, 'the live key sees only live events');
      const theirs = await call(gw.url, '/events', { key: other.test_secret_key });
      assert.equal(theirs.body.data.total, 1, 'another merchant sees only its own');
    });

    test('the payload is the very body the webhook is sent with', async () => {
      const { gw, merchant } = ctx;
      const id = await recordEvent(gw.gateway.database, merchant.id, {
        payload: { tx_ref: 'same-bytes', meta: { a: [1, 2] } },
      });
      const stored = await gw.gateway.database.db
        .selectFrom('events')
        .select('payload')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const res = await call(gw.url, `/events/${id}`, { key: merchant.test_secret_key });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.message, 'Event retrieved successfully.');
      assert.equal(res.body.data.id, id);
      assert.equal(JSON.stringify(res.body.data.payload), stored.payload);
    });

    test('filters by type and by a range of days or times, and pages', async () => {
      const { gw } = ctx;
      const merchant = await gw.newMerchant('Filter Shop');
      const db = gw.gateway.database;
      const start = Date.parse('2026-10-01T12:00:00Z');
      for (let day = 0; day < 5; day++)
        await recordEvent(db, merchant.id, {
          now: start + day * DAY,
          type: day % 2 ? 'api.payout' : 'api.charge.payment',
        });
      const list = async (query: string) =>
        (await call(gw.url, `/events?${query}`, { key: merchant.test_secret_key })).body.data;

      assert.equal((await list('type=api.payout')).total, 2);
      assert.equal((await list('from=2026-10-02&to=2026-10-03')).total, 2, 'whole days, ends included');
      assert.equal((await list('from=2026-10-02T12:00:00Z')).total, 4);
      assert.equal((await list('to=2026-10-02T13:00:00%2B02:00')).total, 1, 'an offset is honoured');
      assert.equal((await list('type=api.charge.payment&from=2026-10-02')).total, 2);

      const first = await list('per_page=2');
      assert.equal(first.total_pages, 3);
      assert.match(first.next_page_url, /\/events\?per_page=2&page=2$|\/events\?page=2&per_page=2$/);
      const last = await list('per_page=2&page=3');
      assert.equal(last.data.length, 1);
      assert.equal(last.next_page_url, null);
      assert.equal((await list('page=9')).data.length, 0);
    });

    test('bad filters are refused with the envelope, never a 500', async () => {
      const { gw, merchant } = ctx;
      const ask = (query: string) => call(gw.url, `/events?${query}`, { key: merchant.test_secret_key });
      assertFieldError(await ask('type=payment.nonsense'), 'type', 'The selected type is invalid.');
      assertFieldError(await ask('from=yesterday'), 'from', 'The from format is invalid.');
      assertFieldError(await ask('from=2026-02-30'), 'from', 'The from is not a valid date.');
      assertFieldError(await ask('to=2026-11-28T25:00Z'), 'to', 'The to is not a valid date.');
      assertFieldError(
        await ask('from=2026-11-28&to=2026-11-01'),
        'to',
        'The to must be a date after or equal to from.',
      );
      assertFieldError(await ask('page=0'), 'page', 'The page format is invalid.');
      assertFieldError(await ask('per_page=1000'), 'per_page', 'The per page format is invalid.');
      assert.equal((await ask('type=a&type=b')).status, 400);
    });

    test("an unknown event, another merchant's or another mode's is 404; no key is 401", async () => {
      const { gw, merchant } = ctx;
      const other = await gw.newMerchant('Stranger');
      const theirs = await recordEvent(gw.gateway.database, other.id);
      const live = await recordEvent(gw.gateway.database, merchant.id, { mode: 'live' });
      for (const id of [theirs, live, 'evt_doesNotExist', 'not an id', '%00']) {
        const res = await call(gw.url, `/events/${encodeURIComponent(id)}`, { key: merchant.test_secret_key });
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { status: 'failed', message: 'Event not found.', data: null });
      }
      assert.equal((await call(gw.url, '/events')).status, 401);
      assert.equal((await call(gw.url, `/events/${theirs}`)).status, 401);
    });
  });
}
