// Percentiles and medians of samples.

/** Nearest-rank percentile of values already sorted ascending; NaN when there are none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Nearest-rank percentile of values in any order. */
export function percentileOf(values: number[], p: number): number {
  return percentile([...values].sort((a, b) => a - b), p);
}

/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
