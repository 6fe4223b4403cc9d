/**
 * One writer's pin requests, committed together: a request made while an earlier one of the same writer is being
 * committed waits for the next transaction, which takes every key asked for meanwhile. A batch chunk draws its codes
 * concurrently, so its 50 images cost two pin transactions instead of 50. Each caller still returns only once its key's
 * pin is committed (and fails if that transaction failed).
 */
export class PinQueue {
  private waiting: Array<{ key: string; done: (err?: unknown) => void }> = [];
  private committing = false;

  constructor(private readonly commit: (keys: string[]) => Promise<void>) {}

  pin(key: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ key, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!this.committing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.committing = true;
    while (this.waiting.length) {
      const taken = this.waiting;
      this.waiting = [];
      let failure: unknown;
      try {
        await this.commit(taken.map((t) => t.key));
      } catch (err) {
        failure = err ?? new Error('pin failed');
      }
      for (const t of taken) t.done(failure);
    }
    this.committing = false;
  }
}
