import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LazyThread, ThreadUnavailableError, type LazyThreadLimits } from '../../src/shared/lazy-thread.ts';
import { outputOf, ROOT } from '../helpers/cli.ts';
import type { TestAnswer, TestQuestion } from '../helpers/question-thread.ts';

const MODULE = new URL('../helpers/question-thread.ts', import.meta.url);
/**
 * A thread whose start is allowed 30 s unless a test says otherwise: starting one loads its module
 * through tsx, seconds on a loaded machine, which would otherwise eat the question's own time.
 */
const thread = (limits: Partial<LazyThreadLimits> = {}) =>
  new LazyThread<TestQuestion, TestAnswer>(MODULE, {
    answerWithinMs: 20_000,
    startWithinMs: 30_000,
    endIdleAfterMs: 60_000,
    ...limits,
  });

describe('a lazy worker thread', () => {
  test('answers questions one at a time, in the order asked, in one thread', async () => {
    const asked = thread();
    const answers = await Promise.all([
      asked.ask({ busyMs: 100 }),
      asked.ask({ busyMs: 100 }),
      asked.ask({ busyMs: 100 }),
    ]);
    assert.equal(new Set(answers.map((answer) => answer.threadId)).size, 1, 'one thread');
    for (const [index, answer] of answers.entries()) {
      if (index > 0)
        assert.ok(answer.began >= answers[index - 1]!.ended, `question ${index} began after the one before it ended`);
    }
  });

  test('a question not answered in time fails, the busy thread is ended, and the next question gets a new one', async () => {
    const asked = thread({ answerWithinMs: 3_000 });
    const first = await asked.ask({});
    const started = Date.now();
    await assert.rejects(
      asked.ask({ busyMs: 20_000 }),
      (error) => error instanceof ThreadUnavailableError && /in time/.test(error.message),
    );
    assert.ok(Date.now() - started < 10_000, 'failed at its time, not when the work would have ended');
    assert.notEqual((await asked.ask({})).threadId, first.threadId);
  });

  test("a thread's start is allowed its own time: the questions it gets before its first answer may take longer, later ones may not", async () => {
    const asked = thread({ answerWithinMs: 1_000, startWithinMs: 10_000 });
    const [first, queued] = await Promise.all([asked.ask({ busyMs: 1_500 }), asked.ask({})]);
    assert.equal(queued.threadId, first.threadId, 'both answered by the starting thread');
    await assert.rejects(
      asked.ask({ busyMs: 1_500 }),
      (error) => error instanceof ThreadUnavailableError && /in time/.test(error.message),
      'once started, the question has its own time only',
    );
    assert.ok(
      (await asked.ask({ busyMs: 1_500 })).threadId !== first.threadId,
      'and a new thread gets the allowance again',
    );
    await assert.rejects(
      thread({ answerWithinMs: 1_000, startWithinMs: 0 }).ask({ busyMs: 1_500 }),
      ThreadUnavailableError,
      'without an allowance a slow start fails',
    );
  });

  test('the time includes the wait for its turn: a question still waiting when it runs out fails', async () => {
    const asked = thread({ answerWithinMs: 2_000 });
    await asked.ask({});
    const [ahead, behind] = await Promise.allSettled([asked.ask({ busyMs: 1_200 }), asked.ask({ busyMs: 1_200 })]);
    assert.equal(ahead.status, 'fulfilled');
    assert.ok(behind.status === 'rejected' && behind.reason instanceof ThreadUnavailableError);
  });

  test('a thread that exits or throws fails its question, and the process goes on with a new thread', async () => {
    const asked = thread();
    const first = await asked.ask({});
    await assert.rejects(
      asked.ask({ exitCode: 3 }),
      (error) => error instanceof ThreadUnavailableError && /exit code 3/.test(error.message),
    );
    const second = await asked.ask({});
    assert.notEqual(second.threadId, first.threadId);
    await assert.rejects(
      asked.ask({ throws: 'broken' }),
      (error) => error instanceof ThreadUnavailableError && /broken/.test(error.message),
    );
    assert.notEqual((await asked.ask({})).threadId, second.threadId);
  });

  test('an idle thread ends: the next question starts another', async () => {
    const asked = thread({ endIdleAfterMs: 200 });
    const first = await asked.ask({});
    assert.equal((await asked.ask({})).threadId, first.threadId, 'kept while in use');
    await sleep(1_000);
    assert.notEqual((await asked.ask({})).threadId, first.threadId);
  });

  test('a question keeps the process alive until answered, the first or a later one; an idle thread does not', async () => {
    const script = `import { LazyThread } from './src/shared/lazy-thread.ts';
const asked = new LazyThread(new URL('./test/helpers/question-thread.ts', import.meta.url), { answerWithinMs: 20_000, startWithinMs: 0, endIdleAfterMs: 60_000 });
await asked.ask({});
asked.ask({ busyMs: 300 }).then((answer) => console.log('answered by', answer.threadId));`;
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { code, stdout, stderr } = await outputOf(child);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /answered by \d+/);
    assert.ok(Date.now() - started < 30_000, 'ended without waiting for the idle thread to end');
  });
});
