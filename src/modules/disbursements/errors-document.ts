// A batch's invalid lines as a document (XLSX or CSV), for the API's batch/downloadErrors and the
// console's error workbook (console/payouts/routes/uploads.ts): the line number, the six input columns as
// stored and why the line is invalid, in the reader's language. The line number of a file's batch
// is the line's row in the file (the header is row 1, as a spreadsheet shows it and the console's
// "Row N" messages name it): the document is for fixing that file and uploading it again. An E8
// (JSON) batch's is the line's position, transactions[i] being line i + 1.
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import { tableDocument, type Cell, type DownloadType } from './documents.ts';
import { FILE_COLUMNS } from './files.ts';
import { BATCH } from './lifecycle.ts';
import { findBatch, invalidLines } from './repository.ts';
import { lineError } from './service.ts';

/**
 * The document of a batch's invalid lines, in `lang` (the route's, and the console's error
 * workbook: console/payouts/routes/uploads.ts). 404 for a batch that is not the merchant's, 409 while it
 * is being validated, 503 while other documents are being built (tableDocument).
 */
export async function batchErrorsDocument(deps: Deps, lang: Lang, merchantAccountNumber: number, batchNumber: number, downloadType: DownloadType): Promise<Buffer> {
  const batch = await findBatch(deps.db, merchantAccountNumber, batchNumber);
  if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber });
  if (batch.status_code === BATCH.queued) throw new AppError('conflict', 'detail.batchValidating', { batchNumber }, { headers: { 'retry-after': '1' } });
  const lines = await invalidLines(deps.db, batch.merchant_account_number, batch.batch_number);
  return tableDocument(
    downloadType,
    'Errors',
    ['lineNumber', ...FILE_COLUMNS, 'errorMessage'],
    lines.map((l) => [
      l.file_row ?? l.line_number,
      l.beneficiary_name,
      l.connector_id,
      l.beneficiary_account_number,
      l.transaction_description,
      amountCell(l),
      l.source_reference_number,
      lineError(lang, l),
    ]),
  );
}

/**
 * A line's amount in a document: its minor units; for a line whose amount was not one
 * (amountFormat, no amount stored), the text as written, so the file shows what to fix and never a
 * made-up 0.
 */
export function amountCell(p: { amount_minor: number | null; error_params: Record<string, string | number> | null }): Cell {
  return p.amount_minor === null ? String(p.error_params?.amount ?? '') : { minor: p.amount_minor };
}
