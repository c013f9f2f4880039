// The XLSX reader thread (see readXlsxInWorker in files.ts): reads the workbook it is given and
// posts back what it found, or why it could not. Loaded as plain TypeScript by Node's type
// stripping (or tsx, when the process runs under it).
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../http/errors.ts';
import { readXlsxContents } from './files.ts';

try {
  const contents = await readXlsxContents(Buffer.from(workerData as Uint8Array));
  parentPort!.postMessage({ contents });
} catch (err) {
  const reason = err instanceof AppError ? String(err.params.reason ?? err.message) : err instanceof Error ? err.message : String(err);
  parentPort!.postMessage({ reason });
}
