/** Teardown steps gathered while the bench sets up, so a failure at any point still leaves nothing behind. */
export class Cleanup {
  private readonly tasks: Array<() => Promise<void>> = [];

  add(task: () => Promise<void>): void {
    this.tasks.push(task);
  }

  /**
   * Runs the steps newest first, so servers stop before the database they use is dropped.
   * Each step is taken off the list, so a second call (Ctrl-C during teardown) repeats nothing.
   */
  async run(): Promise<void> {
    for (let task = this.tasks.pop(); task; task = this.tasks.pop()) {
      try {
        await task();
      } catch (error) {
        process.stderr.write(`bench: cleanup step failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  }
}
