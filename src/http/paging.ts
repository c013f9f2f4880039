// Paging as the gateway does it: pageNumber from 1, numberOfReturnedRows per page, and
// isIncremental = "this page and every page before it" (bounded, so it cannot read a whole table).
import { Type } from '@sinclair/typebox';

/** The most rows an incremental read returns. */
export const MAX_INCREMENTAL_ROWS = 10_000;

export function pageWindow(p: { pageNumber: number; numberOfReturnedRows: number; isIncremental: boolean }): { offset: number; limit: number } {
  if (p.isIncremental) return { offset: 0, limit: Math.min(p.pageNumber * p.numberOfReturnedRows, MAX_INCREMENTAL_ROWS) };
  return { offset: (p.pageNumber - 1) * p.numberOfReturnedRows, limit: p.numberOfReturnedRows };
}

/** The paging fields of a list request: spread them into its body schema. */
export const Paging = {
  pageNumber: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  numberOfReturnedRows: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  isIncremental: Type.Boolean({ default: false, description: `true: this page and every page before it (at most ${MAX_INCREMENTAL_ROWS.toLocaleString('en-US')} rows).` }),
};
