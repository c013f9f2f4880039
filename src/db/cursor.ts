// Reading a query's rows without holding them: a server-side cursor on a pooled client of its own,
// fetched a slice at a time, as an async generator (the console's exports, kit/exports.ts). Memory
// is one slice whatever the number of rows; the consumer's pace is the reading's pace (a row is
// fetched only when asked for). The generator's finally always ends the transaction and gives the
// client back, whether the rows ran out, the consumer stopped early (its `return()`: a download
// whose client went away) or a statement failed (then the connection is closed, not reused).
import { beginSql, type Db } from './pool.ts';

/** Rows per FETCH: one round trip per 1,000 rows, ~0.3 MB of rows in memory at a time. */
export const CURSOR_SLICE_ROWS = 1_000;

/**
 * The rows of `text` (parameters `values`), in its order. A read-only transaction: the cursor
 * sees one snapshot from start to end, so a long export is consistent even while rows are added.
 * Each FETCH is its own statement, so the pool's statement_timeout bounds one slice, not the whole
 * export; a reader that stops asking for longer than the pool's idle_in_transaction_session_timeout
 * (60 s) has its session ended by the server, and the next FETCH fails (its export is cut short).
 */
export async function* cursorRows<R>(db: Db, text: string, values: readonly unknown[], sliceRows = CURSOR_SLICE_ROWS): AsyncGenerator<R, void, undefined> {
  const client = await db.connect();
  let failure: Error | undefined;
  let ended = false;
  try {
    // JIT compiling would only delay the first rows: the per-row work is small.
    await client.query(`${beginSql(db, 'begin read only')}; set local jit = off`);
    await client.query(`declare export_rows no scroll cursor for ${text}`, values as unknown[]);
    for (;;) {
      const { rows } = await client.query<R & object>(`fetch forward ${sliceRows} from export_rows`);
      for (const row of rows) yield row;
      if (rows.length < sliceRows) break;
    }
    await client.query('close export_rows; commit');
    ended = true;
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    // Stopped early or failed: the rollback closes the cursor. A failed rollback closes the connection.
    if (!ended && !failure) await client.query('rollback').catch((err: Error) => (failure = err));
    client.release(failure);
  }
}
