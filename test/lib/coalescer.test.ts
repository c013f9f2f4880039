// lib/coalescer.ts on its own: no database, no timers. Batches are held open by deferred promises
// the tests settle by hand, and `settle()` lets the pump (scheduled with setImmediate) run.
import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../src/lib/coalescer.ts';

/** One event-loop turn: setImmediate callbacks queued before it (the pump) and their microtasks run. */
const turn = () => new Promise<void>((r) => setImmediate(r));
/**
 * A few turns: enough for a finished batch to settle its callers, for the coalescer to schedule
 * its pump and for the pump to run (each of these may sit behind our own setImmediate).
 */
const settle = async () => {
  for (let i = 0; i < 3; i++) await turn();
};

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A promise's state without waiting for it. */
function track<T>(p: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

/**
 * A runBatch whose every call waits until the test answers it. Records the batches it was given
 * and the most calls that were running at once.
 */
function manualRunner<I, O>() {
  const calls: { items: I[]; done: Deferred<O[]> }[] = [];
  let running = 0;
  let maxRunning = 0;
  const runBatch = async (items: I[]): Promise<O[]> => {
    const done = deferred<O[]>();
    calls.push({ items: [...items], done });
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    try {
      return await done.promise;
    } finally {
      running -= 1;
    }
  };
  return {
    runBatch,
    calls,
    get running() {
      return running;
    },
    get maxRunning() {
      return maxRunning;
    },
  };
}

describe('Coalescer', () => {
  it('sends items submitted in the same turn as one batch', async () => {
    const runner = manualRunner<number, string>();
    const c = new Coalescer(runner.runBatch, 10, 2);
    const results = [1, 2, 3, 4].map((n) => c.submit(n));
    // Nothing leaves before the end of the turn.
    expect(runner.calls).toHaveLength(0);
    expect(c.waiting).toBe(4);
    await settle();
    expect(runner.calls.map((x) => x.items)).toEqual([[1, 2, 3, 4]]);
    expect(c.waiting).toBe(0);
    runner.calls[0].done.resolve(['a', 'b', 'c', 'd']);
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    // A lone item submitted later goes out on its own, in a new batch.
    const lone = c.submit(5);
    await settle();
    expect(runner.calls.map((x) => x.items)).toEqual([[1, 2, 3, 4], [5]]);
    runner.calls[1].done.resolve(['e']);
    expect(await lone).toBe('e');
  });

  it('splits a queue longer than maxBatch into batches of at most maxBatch, in order', async () => {
    const runner = manualRunner<number, number>();
    const c = new Coalescer(runner.runBatch, 3, 10);
    const results = Array.from({ length: 8 }, (_, i) => c.submit(i));
    await settle();
    expect(runner.calls.map((x) => x.items)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7],
    ]);
    for (const call of runner.calls) call.done.resolve(call.items.map((n) => n * 10));
    expect(await Promise.all(results)).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
  });

  it('never runs more than maxInFlight batches; what queued meanwhile leaves together once a slot frees', async () => {
    const runner = manualRunner<number, number>();
    const c = new Coalescer(runner.runBatch, 2, 2);
    const first = Array.from({ length: 6 }, (_, i) => track(c.submit(i)));
    await settle();
    // 6 items, batches of 2, 2 slots: two batches run, two items wait.
    expect(runner.calls.map((x) => x.items)).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(runner.running).toBe(2);
    expect(c.waiting).toBe(2);
    // More arrive while both slots are busy: they queue behind.
    const later = [6, 7, 8].map((n) => track(c.submit(n)));
    await settle();
    expect(runner.calls).toHaveLength(2);
    expect(c.waiting).toBe(5);

    // One slot frees: exactly one more batch leaves, with the oldest waiting items.
    runner.calls[0].done.resolve([100, 101]);
    await settle();
    expect(runner.calls.map((x) => x.items)).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
    expect(runner.running).toBe(2);
    expect(c.waiting).toBe(3);
    expect(first.slice(0, 2).map((s) => s.value)).toEqual([100, 101]);
    expect(first.slice(2).every((s) => !s.settled)).toBe(true);

    // Both slots free in the same turn: the rest leave (batches of 2), still never more than 2 running.
    runner.calls[1].done.resolve([102, 103]);
    runner.calls[2].done.resolve([104, 105]);
    await settle();
    expect(runner.calls.slice(3).map((x) => x.items)).toEqual([[6, 7], [8]]);
    expect(c.waiting).toBe(0);
    runner.calls[3].done.resolve([106, 107]);
    runner.calls[4].done.resolve([108]);
    await settle();
    expect([...first, ...later].map((s) => s.value)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108]);
    expect(runner.maxRunning).toBe(2);
  });

  it('sends everything that queued behind a single busy slot as one batch when it frees', async () => {
    const runner = manualRunner<string, string>();
    const c = new Coalescer(runner.runBatch, 64, 1);
    const a = c.submit('a');
    await settle();
    expect(runner.calls.map((x) => x.items)).toEqual([['a']]);
    // Arriving over several turns while the only slot is busy.
    const queued: Promise<string>[] = [];
    for (const item of ['b', 'c', 'd', 'e']) {
      queued.push(c.submit(item));
      await settle();
    }
    expect(runner.calls).toHaveLength(1);
    expect(runner.maxRunning).toBe(1);
    runner.calls[0].done.resolve(['A']);
    expect(await a).toBe('A');
    await settle();
    expect(runner.calls.map((x) => x.items)).toEqual([['a'], ['b', 'c', 'd', 'e']]);
    runner.calls[1].done.resolve(['B', 'C', 'D', 'E']);
    expect(await Promise.all(queued)).toEqual(['B', 'C', 'D', 'E']);
    expect(runner.maxRunning).toBe(1);
  });

  it('gives each caller the outcome at its own position, whatever order batches finish in', async () => {
    const runner = manualRunner<{ who: string }, string>();
    const c = new Coalescer(runner.runBatch, 3, 3);
    const names = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus'];
    const results = names.map((who) => c.submit({ who }));
    await settle();
    expect(runner.calls).toHaveLength(3);
    // Answer the last batch first, each outcome derived from its own item.
    for (const call of [...runner.calls].reverse()) call.done.resolve(call.items.map((x) => `hello ${x.who}`));
    expect(await Promise.all(results)).toEqual(names.map((n) => `hello ${n}`));
  });

  it('rejects exactly the callers of a batch whose runBatch throws; other and later batches still work', async () => {
    const seen: number[][] = [];
    const boom = new Error('statement failed');
    const c = new Coalescer<number, number>(
      async (items) => {
        seen.push(items);
        if (items.includes(3)) throw boom;
        return items.map((n) => -n);
      },
      2,
      4,
    );
    const results = [1, 2, 3, 4, 5].map((n) => c.submit(n).then((v) => ({ ok: v }), (err: unknown) => ({ err })));
    await settle();
    expect(seen).toEqual([[1, 2], [3, 4], [5]]);
    expect(await Promise.all(results)).toEqual([{ ok: -1 }, { ok: -2 }, { err: boom }, { err: boom }, { ok: -5 }]);
    // The failure freed its slot: a later batch runs and answers.
    const after = [6, 7].map((n) => c.submit(n));
    expect(await Promise.all(after)).toEqual([-6, -7]);
    expect(seen.at(-1)).toEqual([6, 7]);
  });

  it('rejects a batch when runBatch throws synchronously', async () => {
    const boom = new Error('sync');
    let calls = 0;
    const c = new Coalescer<number, number>(
      (items) => {
        calls += 1;
        if (calls === 1) throw boom;
        return Promise.resolve(items);
      },
      10,
      1,
    );
    await expect(Promise.all([c.submit(1), c.submit(2)])).rejects.toBe(boom);
    expect(await c.submit(3)).toBe(3);
  });

  it.each([
    ['fewer', (items: number[]) => items.slice(1)],
    ['more', (items: number[]) => [...items, 0]],
  ])('rejects every caller of a batch answered with %s outcomes than items', async (_name, answer) => {
    const c = new Coalescer<number, number>(async (items) => (items[0] === 1 ? answer(items) : items), 10, 1);
    const results = [1, 2, 3].map((n) => c.submit(n).then((v) => ({ ok: v }), (err: unknown) => ({ err: String(err) })));
    const settled = await Promise.all(results);
    expect(settled).toHaveLength(3);
    for (const r of settled) expect(r).toEqual({ err: expect.stringMatching(/batch of 3 answered \d outcomes/) });
    // The coalescer still serves later batches.
    expect(await Promise.all([c.submit(7), c.submit(8)])).toEqual([7, 8]);
  });

  it('calls onBatch once per batch with its size', async () => {
    const sizes: number[] = [];
    const runner = manualRunner<number, number>();
    const c = new Coalescer(runner.runBatch, 4, 1, (n) => sizes.push(n));
    const results = Array.from({ length: 6 }, (_, i) => c.submit(i));
    await settle();
    expect(sizes).toEqual([4]);
    runner.calls[0].done.resolve([0, 1, 2, 3]);
    await settle();
    expect(sizes).toEqual([4, 2]);
    runner.calls[1].done.resolve([4, 5]);
    await Promise.all(results);
    const lone = c.submit(9);
    await settle();
    runner.calls[2].done.resolve([9]);
    await lone;
    expect(sizes).toEqual([4, 2, 1]);
  });

  it.each([
    [0, 1],
    [1, 0],
    [-1, 4],
    [4, -1],
    [Number.NaN, 4],
    [4, Number.NaN],
  ])('refuses maxBatch %s, maxInFlight %s', (maxBatch, maxInFlight) => {
    expect(() => new Coalescer(async (items: number[]) => items, maxBatch, maxInFlight)).toThrow(RangeError);
  });

  it('accepts maxBatch and maxInFlight of 1: one item at a time', async () => {
    const runner = manualRunner<number, number>();
    const c = new Coalescer(runner.runBatch, 1, 1);
    const results = [1, 2, 3].map((n) => c.submit(n));
    for (let i = 0; i < 3; i++) {
      await settle();
      expect(runner.calls.map((x) => x.items)).toEqual(Array.from({ length: i + 1 }, (_, j) => [j + 1]));
      runner.calls[i].done.resolve([(i + 1) * 2]);
    }
    expect(await Promise.all(results)).toEqual([2, 4, 6]);
    expect(runner.maxRunning).toBe(1);
  });
});
