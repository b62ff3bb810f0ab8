import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { requestLogger } from '../../src/http/request-logger.ts';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const parent = pino({ level }, stream);
  let children = 0;
  const child = parent.child;
  // pino's children inherit from their parent, this spy included: it must call through `this`.
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children += 1;
    return child.apply(this, args);
  } as typeof parent.child;
  return { parent, lines, children: () => children };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a request logger logs what its level lets through, with the request id bound', async () => {
  const { parent, lines } = capture('info');
  const log = requestLogger(parent, { reqId: 'req-1' }, {});
  log.info({ route: '/payment' }, 'request');
  log.debug('too quiet');
  await tick();
  assert.deepEqual(
    lines.map(({ reqId, route, msg }) => ({ reqId, route, msg })),
    [{ reqId: 'req-1', route: '/payment', msg: 'request' }],
  );
  assert.equal(log.level, 'info');
});

test('a request that logs nothing above the level costs no child logger', async () => {
  const { parent, lines, children } = capture('warn');
  const log = requestLogger(parent, { reqId: 'req-2' }, {});
  log.info('dropped');
  log.debug('dropped');
  assert.equal(children(), 0);
  log.error({ err: new Error('boom') }, 'unexpected error');
  await tick();
  assert.equal(children(), 1);
  assert.deepEqual(
    lines.map(({ reqId, msg }) => ({ reqId, msg })),
    [{ reqId: 'req-2', msg: 'unexpected error' }],
  );
});

test('child loggers of a request logger keep its bindings', async () => {
  const { parent, lines } = capture('info');
  requestLogger(parent, { reqId: 'req-3' }, {}).child({ part: 'payments' }).info('hello');
  await tick();
  assert.deepEqual(
    lines.map(({ reqId, part, msg }) => ({ reqId, part, msg })),
    [{ reqId: 'req-3', part: 'payments', msg: 'hello' }],
  );
});
