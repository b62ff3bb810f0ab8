import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DATABASE_KINDS } from '../helpers/databases.ts';
import { openStream, recordEvent } from '../helpers/events.ts';
import { call, startTestGateway, useTestGateway } from '../helpers/gateway.ts';

for (const kind of DATABASE_KINDS) {
  describe(`the event stream (${kind})`, () => {
    const ctx = useTestGateway(kind);

    test('sends an event made after it connected, as the API shows it, with a cursor and its type', async () => {
      const { gw, merchant } = ctx;
      const before = await recordEvent(gw.gateway.database, merchant.id);
      const stream = await openStream(gw.url, merchant.test_secret_key);
      try {
        assert.equal(stream.status, 200);
        assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
        assert.equal(stream.headers.get('cache-control'), 'no-store');
        const id = await recordEvent(gw.gateway.database, merchant.id, { type: 'api.refund' });
        const [message] = await stream.waitFor(1);
        assert.equal(message!.event, 'api.refund');
        assert.match(message!.id!, new RegExp(`^\\d+-${id}$`));
        const shown = await call(gw.url, `/events/${id}`, { key: merchant.test_secret_key });
        assert.deepEqual(message!.data, shown.body.data);
        assert.ok(!stream.messages.some((m) => m.data.id === before), 'nothing from before it connected');
        assert.ok(stream.comments.includes('connected'));
      } finally {
        stream.close();
      }
    });

    test("a listener never sees another merchant's events nor the other mode's", async () => {
      const { gw, merchant } = ctx;
      const other = await gw.newMerchant('Other Shop');
      const mine = await openStream(gw.url, merchant.test_secret_key);
      const theirs = await openStream(gw.url, other.test_secret_key);
      try {
        const db = gw.gateway.database;
        const b = await recordEvent(db, other.id);
        await recordEvent(db, merchant.id, { mode: 'live' });
        const a = await recordEvent(db, merchant.id);
        await mine.waitFor(1);
        await theirs.waitFor(1);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(
          mine.messages.map((m) => m.data.id),
          [a],
        );
        assert.deepEqual(
          theirs.messages.map((m) => m.data.id),
          [b],
        );
      } finally {
        mine.close();
        theirs.close();
      }
    });

    test('Last-Event-ID replays what happened since, then goes on live, with no gap', async () => {
      const { gw, merchant } = ctx;
      const db = gw.gateway.database;
      const first = await openStream(gw.url, merchant.test_secret_key);
      const seen = await recordEvent(db, merchant.id);
      const [last] = await first.waitFor(1);
      first.close();
      const missed: string[] = [];
      for (let i = 0; i < 3; i++) missed.push(await recordEvent(db, merchant.id));
      const resumed = await openStream(gw.url, merchant.test_secret_key, last!.id);
      try {
        const replayed = (await resumed.waitFor(3)).length;
        await new Promise((resolve) => setTimeout(resolve, 200));
        const live = await recordEvent(db, merchant.id);
        await resumed.waitFor(Math.max(replayed, resumed.messages.length) + 1);
        // A resume replays from LATE_COMMIT_MS before its cursor, for events that committed late:
        // what it sends of that overlap the listener may have had, and tells by id.
        const cursorAt = Number(last!.id!.split('-')[0]);
        const overlap = resumed.messages.filter((m) => Date.parse(m.data.created_at) <= cursorAt);
        for (const m of overlap) assert.ok(Date.parse(m.data.created_at) >= cursorAt - 5_000, m.data.created_at);
        const ids = resumed.messages.slice(overlap.length).map((m) => m.data.id);
        assert.deepEqual(ids, [...missed, live], 'the missed events in order, then the new one, each once');
        assert.ok(!resumed.messages.some((m) => m.data.id === seen), 'not the one it had');
      } finally {
        resumed.close();
      }
    });

    test('a live key is refused unless the operator allows it; closing the gateway ends its streams at once', async () => {
      const { gw, merchant } = ctx;
      const refused = await call(gw.url, '/events/stream', { key: merchant.live_secret_key });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.status, 'failed');
      assert.match(refused.body.message, /EVENTS_STREAM_LIVE=on/);
      assert.equal(refused.body.data, null);
      assert.equal((await call(gw.url, '/events/stream')).status, 401);

      const allowing = await startTestGateway(kind, { EVENTS_STREAM_LIVE: 'on' });
      const shop = await allowing.newMerchant();
      const stream = await openStream(allowing.url, shop.live_secret_key);
      assert.equal(stream.status, 200);
      const id = await recordEvent(allowing.gateway.database, shop.id, { mode: 'live' });
      const [message] = await stream.waitFor(1);
      assert.equal(message!.data.id, id);
      assert.equal(message!.data.mode, 'live');
      const closing = Date.now();
      await allowing.close();
      await stream.ended;
      assert.ok(Date.now() - closing < 3_000, `an open stream held the close for ${Date.now() - closing} ms`);
    });

    test('many listeners of one merchant each get every event once', async () => {
      const { gw } = ctx;
      const shop = await gw.newMerchant('Busy Shop');
      const streams = await Promise.all(Array.from({ length: 20 }, () => openStream(gw.url, shop.test_secret_key)));
      try {
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) ids.push(await recordEvent(gw.gateway.database, shop.id));
        for (const stream of streams) {
          await stream.waitFor(5);
          assert.deepEqual(
            stream.messages.map((m) => m.data.id),
            ids,
          );
        }
      } finally {
        for (const stream of streams) stream.close();
      }
    });
  });
}
