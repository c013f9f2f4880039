// Paging as the gateway does it: pageNumber from 1, numberOfReturnedRows per page, and
// isIncremental = "this page and every page before it" (bounded, so it cannot read a whole table).

/** The most rows an incremental read returns. */
export const MAX_INCREMENTAL_ROWS = 10_000;

export function pageWindow(p: { pageNumber: number; numberOfReturnedRows: number; isIncremental: boolean }): { offset: number; limit: number } {
  if (p.isIncremental) return { offset: 0, limit: Math.min(p.pageNumber * p.numberOfReturnedRows, MAX_INCREMENTAL_ROWS) };
  return { offset: (p.pageNumber - 1) * p.numberOfReturnedRows, limit: p.numberOfReturnedRows };
}
