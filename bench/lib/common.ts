// Small helpers every benchmark part uses: progress on stderr, rounding, waiting.

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export const round1 = (n: number) => Math.round(n * 10) / 10;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `fn`'s result and how long it took, in ms. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const t0 = performance.now();
  const result = await fn();
  return { ms: performance.now() - t0, result };
}
