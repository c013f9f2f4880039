// A batch-file reader thread (see readInWorker in files.ts): decodes the base64 it is given, reads
// the CSV or XLSX and posts back what it found (ReaderMessage), or why it could not. Loaded as
// plain TypeScript by Node's type stripping (or tsx, when the process runs under it); it imports
// only file-reader.ts, so that it starts quickly.
import { once } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { base64Bytes, LINES_PER_MESSAGE, readFileContents, type FileType, type ReaderMessage } from './file-reader.ts';

const { contentType, fileContent, maxBytes, maxLines } = workerData as { contentType: FileType; fileContent: string; maxBytes: number; maxLines: number };
const port = parentPort!;
const post = (message: ReaderMessage) => port.postMessage(message);

const bytes = base64Bytes(fileContent, maxBytes);
if (typeof bytes === 'string') {
  post({ refused: bytes });
} else {
  let contents: Awaited<ReturnType<typeof readFileContents>> | undefined;
  try {
    contents = await readFileContents(contentType, bytes, maxLines);
  } catch (err) {
    // A FileReadError is the file's fault; anything else (a parser's own bug) is answered the
    // same way: the file could not be read, and why.
    post({ unreadable: err instanceof Error ? err.message : String(err) });
  }
  if (contents) {
    const { lines, rowNumbers, ...rest } = contents;
    for (let from = 0; from < lines.length; from += LINES_PER_MESSAGE) {
      post({ lines: lines.slice(from, from + LINES_PER_MESSAGE), rowNumbers: rowNumbers.slice(from, from + LINES_PER_MESSAGE) });
      // The main thread asks for the next part once it has taken this one in.
      await once(port, 'message');
    }
    post({ done: rest });
  }
}
