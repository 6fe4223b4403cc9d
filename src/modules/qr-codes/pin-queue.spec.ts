import { PinQueue } from './pin-queue';

describe('PinQueue', () => {
  it('commits the keys asked for while a commit is in flight together, in one next commit', async () => {
    const commits: string[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const queue = new PinQueue(async (keys) => {
      commits.push(keys);
      if (commits.length === 1) await first;
    });
    const a = queue.pin('a');
    const rest = ['b', 'c', 'd'].map((k) => queue.pin(k));
    let aDone = false;
    void a.then(() => (aDone = true));
    await new Promise((r) => setImmediate(r));
    expect(aDone).toBe(false);
    release();
    await Promise.all([a, ...rest]);
    expect(commits).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('fails every request of a failed commit, and commits later requests anew', async () => {
    let fail = true;
    const commits: string[][] = [];
    const queue = new PinQueue(async (keys) => {
      commits.push(keys);
      if (fail) {
        fail = false;
        throw new Error('database gone');
      }
    });
    const results = await Promise.allSettled([queue.pin('a'), queue.pin('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('database gone'));
    await expect(queue.pin('c')).resolves.toBeUndefined();
    expect(commits).toEqual([['a'], ['b'], ['c']]);
  });
});
