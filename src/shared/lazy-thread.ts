import { Worker, type WorkerOptions } from 'node:worker_threads';

export interface LazyThreadLimits {
  /** A question's whole time, its wait for its turn included; past it the question fails. */
  answerWithinMs: number;
  /**
   * How much longer the questions a thread gets before its first answer may take: its start
   * (loading what it works with) is paid once, and on a busy machine can take several times a
   * question's own time. Without it, a start slower than `answerWithinMs` would fail every
   * question, each thread ended before it was ready and the next started cold again.
   */
  startWithinMs: number;
  /** Idle this long, the thread ends (and its memory goes back); the next question starts another. */
  endIdleAfterMs: number;
}

/** Why a question got no answer: the thread took too long, or died. */
export class ThreadUnavailableError extends Error {}

interface Question<Q, A> {
  question: Q;
  deadline: number;
  answer: (answer: A) => void;
  fail: (error: ThreadUnavailableError) => void;
}

/**
 * The code of a thread running a `.ts` module, as the sources do when they run through tsx (the
 * tests): Node 20 runs no `--import` in a worker thread, so the thread registers tsx itself.
 */
function importedThroughTsx(module: URL): string {
  return `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); });`;
}

/** A worker thread running `module`: a bundle's file as it is, a source through tsx. */
export function startThread(module: URL, options: WorkerOptions = {}): Worker {
  return module.pathname.endsWith('.ts')
    ? new Worker(importedThroughTsx(module), { ...options, eval: true })
    : new Worker(module, options);
}

/**
 * A worker thread for CPU-heavy work the event loop must not wait on: started on the first
 * question, asked one question at a time (the others wait their turn, in order), ended when
 * idle. The module at `workerModule` answers each message it gets with one message. A question
 * is failed, never left hanging, when its time runs out or the thread dies; a thread still busy
 * past its question's time is ended, since its work cannot be interrupted otherwise. While idle
 * the thread does not keep the process alive.
 */
export class LazyThread<Q, A> {
  private readonly waiting: Array<Question<Q, A>> = [];
  private thread: Worker | null = null;
  /** Whether the thread has answered once: started and loaded. */
  private ready = false;
  private current: Question<Q, A> | null = null;
  private overdue: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly workerModule: URL,
    private readonly limits: LazyThreadLimits,
  ) {}

  ask(question: Q): Promise<A> {
    return new Promise((answer, fail) => {
      this.waiting.push({ question, deadline: Date.now() + this.allowedMs(), answer, fail });
      this.askNext();
    });
  }

  private askNext(): void {
    if (this.current) return;
    const next = this.waiting.shift();
    if (!next) return this.rest();
    const left = next.deadline - Date.now();
    if (left <= 0) {
      next.fail(new ThreadUnavailableError('no answer in time: other questions came first'));
      return this.askNext();
    }
    let thread: Worker;
    try {
      if (!this.thread)
        next.deadline = Math.max(next.deadline, Date.now() + this.limits.answerWithinMs + this.limits.startWithinMs);
      thread = this.started();
    } catch (error) {
      next.fail(
        new ThreadUnavailableError(
          `the thread could not start: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return this.askNext();
    }
    clearTimeout(this.idle);
    this.current = next;
    this.overdue = setTimeout(() => this.abandon(thread, 'no answer in time'), left);
    thread.postMessage(next.question);
  }

  private allowedMs(): number {
    return this.limits.answerWithinMs + (this.thread && this.ready ? 0 : this.limits.startWithinMs);
  }

  private started(): Worker {
    if (this.thread) return this.thread;
    const thread = startThread(this.workerModule);
    thread.on('message', (answer: A) => {
      // A thread given up on may still have answered: its answer is no one's now.
      if (this.thread !== thread) return;
      this.ready = true;
      this.settle((question) => question.answer(answer));
    });
    // An uncaught error ends the thread: its exit, which follows, fails the question. Without a listener it would end the process.
    let uncaught = '';
    thread.on('error', (error) => (uncaught = `: ${error.message}`));
    thread.on('exit', (code) => {
      if (this.thread === thread) this.abandon(thread, `the thread ended (exit code ${code}${uncaught})`);
    });
    this.thread = thread;
    this.ready = false;
    return thread;
  }

  /** Ends the thread, failing the question it had. */
  private abandon(thread: Worker, reason: string): void {
    if (this.thread === thread) this.thread = null;
    void thread.terminate();
    this.settle((question) => question.fail(new ThreadUnavailableError(reason)));
  }

  private settle(reply: (question: Question<Q, A>) => void): void {
    const question = this.current;
    if (!question) return;
    this.current = null;
    clearTimeout(this.overdue);
    reply(question);
    this.askNext();
  }

  private rest(): void {
    const thread = this.thread;
    if (!thread) return;
    // From now on only a question's time limit keeps the process alive for the thread.
    thread.unref();
    this.idle = setTimeout(() => {
      if (this.thread !== thread) return;
      this.thread = null;
      void thread.terminate();
    }, this.limits.endIdleAfterMs);
    this.idle.unref();
  }
}
