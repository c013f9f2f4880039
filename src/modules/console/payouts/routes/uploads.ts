// Payout file uploads and the live batch page (issue 19):
//   GET  /console/payouts/upload                              the form (payouts/pages/upload.tsx)
//   GET  /console/payouts/upload/template.csv                 a CSV with the header row and two example payouts
//   POST /console/payouts/upload                              multipart/form-data: the file, and its batch
//   GET  /console/payouts/batches/:n/errors.xlsx (and .csv)   the batch's invalid lines (the API's downloadErrors)
//   GET  /console/payouts/batches/:n/events                   the live batch page's events (payouts/live-batch.ts)
//
// An upload takes the API's own path for batch/addFile (disbursements/routes/add-file.ts): the
// same body limit (BATCH_BODY_LIMIT_BYTES), the file read by the same reader thread and checked
// by the same line schema (files.ts readBatchFile, handed the file's bytes as addFile's
// fileContent), and the batch stored with its validation job by submitBatch, captured by the
// signed-in user. Validation then runs in the background, as for the API, and the browser goes
// to the batch's page, which follows it live.
//
// Once per form: the form key is claimed by runAction in the transaction that stores the batch
// (addFile's own shape: read first, then one transaction), so a double click or a resubmitted
// form makes one batch. A key already spent is answered before the file is read again. A
// multipart body is parsed only here (kit/multipart.ts), and only once the session is known:
// a request without a signed-in session is sent to sign in before its body is read.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, problemFromAppError } from '../../../../http/errors.ts';
import { formField } from '../../../../http/html.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { fieldMessages } from '../../../../http/validation.ts';
import { EXAMPLE_PAYOUTS } from '../../../disbursements/docs.ts';
import { csvDocument, FILE_COLUMNS, FileValidationError, readBatchFile, type FileType } from '../../../disbursements/files.ts';
import { batchErrorsDocument } from '../../../disbursements/errors-document.ts';
import { submitBatch } from '../../../disbursements/service.ts';
import { ConsoleRefusal, FORM_KEY_FIELD, refusalOf, runAction, withNotice } from '../../kit/actions.tsx';
import { cookieNames, parseCookies } from '../../kit/cookies.ts';
import { spentFormKey } from '../upload-queries.ts';
import { consoleContext, cookieHeader, lookUpSession, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { ErrorPage, page } from '../../kit/layout.tsx';
import { SECTION_PATHS, SIGN_IN_PATH } from '../../kit/paths.ts';
import { fitsDateInput } from '../../kit/display.tsx';
import { errorsCsvPath, errorsWorkbookPath } from '../pages/live-batch.tsx';
import { batchPath } from '../pages/payouts.tsx';
import { megabytes, mayUpload, RefusalPage, TEMPLATE_PATH, UPLOAD_PATH, UploadPage, type UploadFormProps } from '../pages/upload.tsx';
import { at } from '../../kit/at.ts';
import { BatchParams, batchNumberOf, liveBatchRoutes } from '../live-batch.ts';
import { readMultipart, type UploadedFile } from '../../kit/multipart.ts';

const config = { consoleAccess: 'user', consoleSection: 'payouts' } as const;

/** The audit log's name for an upload (its detail: file name and type, lines, batch number). */
export const UPLOAD_ACTION = 'upload.add';

/** The form's other parts and the multipart framing, on top of the file itself. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
/**
 * A body up to this many times the limit is read to its end (and dropped) so that the browser
 * shows the page saying the file is too large; a larger one is cut off (the browser then shows a
 * network error). The upload script checks the size before sending, so only forms without it
 * come here.
 */
const DRAIN_FACTOR = 2;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The file of a parsed multipart body (the body is its text fields: formField reads it as a form). */
const uploadedFiles = new WeakMap<object, UploadedFile | 'tooLarge'>();

/** The type a file's name says: CSV or XLSX, by its extension. */
export function fileTypeOf(filename: string): FileType | undefined {
  const extension = /\.([A-Za-z]+)$/.exec(filename)?.[1]?.toLowerCase();
  return extension === 'csv' ? 'CSV' : extension === 'xlsx' ? 'XLSX' : undefined;
}

/**
 * One message per invalid row of a refused file: "Row 4: Transaction Amount must be …", the row the
 * person sees in their spreadsheet or editor (the reader's row of transactions[i], the header being
 * row 1; i + 2 for a file without blank rows), in the API's words (fieldMessages) without the JSON
 * path; messages that name no row (too many lines) as they are.
 */
export function lineProblems(lang: ConsoleContext['lang'], err: FileValidationError): string[] {
  const problems: string[] = [];
  for (const e of err.validation) {
    const row = /^\/transactions\/(\d+)(\/.*)?$/.exec(e.instancePath);
    const message = fieldMessages(lang, [row ? { ...e, instancePath: row[2] ?? '' } : e])[0];
    if (message === undefined) continue;
    const index = row ? Number(row[1]) : -1;
    const text = row ? ct(lang, 'payoutActions.upload.row', { row: err.rowNumbers[index] ?? index + 2, message }) : message;
    if (!problems.includes(text)) problems.push(text);
  }
  return problems;
}

/** What the form shows besides its context and limits: the values sent and why they were refused. */
type FormState = Omit<UploadFormProps, 'context' | 'limitBytes' | 'scheduleMaxDays'>;
type UploadValues = { scheduledDate: string };

function showForm(deps: Deps, reply: FastifyReply, context: ConsoleContext, status: number, form: FormState = {}): FastifyReply {
  return sendHtml(reply, context, status, page(UploadPage({ context, limitBytes: deps.config.batchBodyLimitBytes, scheduleMaxDays: deps.config.scheduleMaxDays, ...form })));
}

function sendForbidden(reply: FastifyReply, context: ConsoleContext): FastifyReply {
  return sendHtml(reply, context, 403, page(ErrorPage({ context, status: 403, kind: 'forbidden' })));
}

// ---------------------------------------------------------------------------------------------
// The form and its template

/** GET /console/payouts/upload (the form) and /console/payouts/upload/template.csv. */
function uploadForm(scope: App, deps: Deps): void {
  scope.get(at(UPLOAD_PATH), { config }, async (request, reply) => {
    const context = consoleContext(request);
    if (!mayUpload(context.user.roleCode)) return sendForbidden(reply, context);
    return showForm(deps, reply, context, 200);
  });

  scope.get(at(TEMPLATE_PATH), { config }, async (_request, reply) => {
    const rows = EXAMPLE_PAYOUTS.map((line) => FILE_COLUMNS.map((column) => String(line[column])));
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="payouts-template.csv"')
      .header('cache-control', 'no-store')
      .send(csvDocument(FILE_COLUMNS, rows));
  });
}

// ---------------------------------------------------------------------------------------------
// The upload

/**
 * The form's file and date, checked before the file is read: the file with its type, or the form
 * again with why (413 too large, 415 not CSV or XLSX, 400 missing, empty or a date that is not one).
 */
function checkedForm(lang: Lang, limitBytes: number, file: UploadedFile | 'tooLarge' | undefined, values: UploadValues): { file: UploadedFile; type: FileType } | { status: number; form: FormState } {
  const { scheduledDate } = values;
  if (file === 'tooLarge' || (file && file.bytes.length > limitBytes)) return { status: 413, form: { values, errors: { file: ct(lang, 'payoutActions.upload.tooLarge', { megabytes: megabytes(limitBytes) }) } } };
  const errors: { file?: string; scheduledDate?: string } = {};
  if (scheduledDate !== '' && !fitsDateInput(scheduledDate)) errors.scheduledDate = ct(lang, 'payoutActions.upload.dateFormat');
  const type = file ? fileTypeOf(file.filename) : undefined;
  if (!file || (file.filename === '' && file.bytes.length === 0)) errors.file = ct(lang, 'payoutActions.upload.fileRequired');
  else if (!type) return { status: 415, form: { values, errors: { ...errors, file: ct(lang, 'payoutActions.upload.wrongType', { name: file.filename }) } } };
  else if (file.bytes.length === 0) errors.file = ct(lang, 'payoutActions.upload.fileEmpty', { name: file.filename });
  if (errors.file || errors.scheduledDate || !file || !type) return { status: 400, form: { values, errors } };
  return { file, type };
}

/** Stores the batch with its validation job (runAction: once per form key); where to go next: its page. */
async function storeBatch(
  deps: Deps,
  request: FastifyRequest,
  context: ConsoleContext,
  upload: { file: UploadedFile; type: FileType; transactions: Awaited<ReturnType<typeof readBatchFile>>; scheduledDate: string },
): Promise<string> {
  const { user } = context;
  const { file, type, transactions, scheduledDate } = upload;
  const result = await runAction(deps, request, context, {
    action: UPLOAD_ACTION,
    run: async (tx) => {
      const accepted = await submitBatch(deps, tx, {
        merchantAccountNumber: user.merchantAccountNumber,
        isBatchScheduled: scheduledDate !== '',
        scheduledDate: scheduledDate === '' ? null : scheduledDate,
        capturedBy: user.emailAddress,
        uploadType: type,
        transactions,
      });
      return {
        outcome: { location: withNotice(batchPath(accepted.batchNumber), 'notice.payoutActions.uploaded') },
        detail: { fileName: file.filename, fileType: type, lines: transactions.length, batchNumber: accepted.batchNumber },
      };
    },
  });
  return result.outcome.location;
}

/** A refused upload: the form again, with why (by field where the refusal says which), in the refusal's status. */
function refuse(deps: Deps, reply: FastifyReply, context: ConsoleContext, err: unknown, values: UploadValues, stage: 'file' | 'scheduledDate'): FastifyReply {
  const { lang } = context;
  if (err instanceof FileValidationError) return showForm(deps, reply, context, 400, { values, lineProblems: lineProblems(lang, err) });
  if (err instanceof ConsoleRefusal) return showForm(deps, reply, context, err.status, { values, message: err.message });
  if (err instanceof AppError && err.kind === 'unavailable') {
    // Other files are being read (files.ts: a few reader threads at once): try again shortly.
    for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
    return showForm(deps, reply, context, 503, { values, message: ct(lang, 'payoutActions.upload.busy') });
  }
  const refusal = refusalOf(err, lang);
  if (!refusal) throw err;
  const message = [refusal.message, ...refusal.fields].join(' ');
  if (stage === 'file') return showForm(deps, reply, context, refusal.status, { values, errors: { file: message } });
  // After the file was read: the scheduled date (scheduledDateOf), or the merchant (inactive).
  const aboutDate = err instanceof AppError && err.detailKey?.startsWith('detail.scheduledDate');
  return showForm(deps, reply, context, refusal.status, aboutDate ? { values, errors: { scheduledDate: message } } : { values, message });
}

/** The upload's handler: the form checked, a form sent again answered, the file read, the batch stored. */
async function upload(deps: Deps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const context = consoleContext(request);
  const { lang, user } = context;
  const limitBytes = deps.config.batchBodyLimitBytes;
  if (!mayUpload(user.roleCode)) return sendForbidden(reply, context);
  // The multipart body is its text fields (the parser below): read as a form, not by a schema.
  const body = (request.body ?? {}) as Record<string, unknown>;
  const values = { scheduledDate: (formField(body, 'scheduledDate') ?? '').trim() };
  const checked = checkedForm(lang, limitBytes, uploadedFiles.get(body), values);
  if ('status' in checked) return showForm(deps, reply, context, checked.status, checked.form);
  const { file, type } = checked;

  // A form sent again (a double click, Back and submit): its batch, without reading the file again.
  const formKey = formField(body, FORM_KEY_FIELD) ?? '';
  const spent = UUID.test(formKey) ? await spentFormKey(deps.db, user.merchantAccountNumber, formKey) : undefined;
  if (spent) {
    if (spent.userId === user.userId && spent.action === UPLOAD_ACTION) return redirect(request, reply, spent.outcome.location);
    return showForm(deps, reply, context, 409, { values, message: ct(lang, 'action.staleForm') });
  }

  let transactions;
  try {
    // The form promises that failing lines are listed and the others go on: a row whose amount is
    // not one is such a line (amountFormat), where the API's addFile refuses the file as E8 does.
    transactions = await readBatchFile(type, file.bytes.toString('base64'), limitBytes, { malformedAmounts: 'fail-line' });
  } catch (err) {
    return refuse(deps, reply, context, err, values, 'file');
  }
  try {
    return redirect(request, reply, await storeBatch(deps, request, context, { file, type, transactions, scheduledDate: values.scheduledDate }));
  } catch (err) {
    return refuse(deps, reply, context, err, values, 'scheduledDate');
  }
}

/**
 * POST /console/payouts/upload, multipart/form-data: its body is parsed by this route alone
 * (kit/multipart.ts), not by the scope's urlencoded parser nor a schema, and only once the session
 * is known.
 */
function uploadRoute(scope: App, deps: Deps): void {
  const limitBytes = deps.config.batchBodyLimitBytes;
  const names = cookieNames(deps.config.mode);

  /** Before the body is read: a request without a signed-in session goes to sign in (as the scope would send it after). */
  const signedInFirst = async (request: FastifyRequest, reply: FastifyReply) => {
    const found = await lookUpSession(deps, parseCookies(request.headers.cookie).get(names.session));
    if (found.kind === 'active') return;
    if (found.kind === 'ended') reply.header('set-cookie', cookieHeader(deps, 'session', '', 0));
    return redirect(request, reply, `${SIGN_IN_PATH}?${found.kind === 'ended' ? 'expired=1' : 'from=console'}`);
  };

  void scope.register(async (child: App) => {
    // Only this route reads multipart bodies (the scope's other forms are urlencoded).
    child.addContentTypeParser('multipart/form-data', async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
      const parsed = await readMultipart(payload as never, request.headers['content-type'], request.headers['content-length'], {
        keepBytes: limitBytes + FORM_OVERHEAD_BYTES,
        drainBytes: DRAIN_FACTOR * limitBytes + FORM_OVERHEAD_BYTES,
      });
      if (parsed.tooLarge) uploadedFiles.set(parsed.fields, 'tooLarge');
      else if (parsed.file) uploadedFiles.set(parsed.fields, parsed.file);
      return parsed.fields;
    });
    child.post(at(UPLOAD_PATH), { config, onRequest: signedInFirst }, (request, reply) => upload(deps, request, reply));
  });
}

// ---------------------------------------------------------------------------------------------
// A batch's invalid lines

/** GET /console/payouts/batches/:batchNumber/errors.xlsx (and .csv): the API's downloadErrors document, in the user's language. */
function errorDocuments(scope: App, deps: Deps): void {
  for (const [type, path, contentType] of [
    ['XLSX', errorsWorkbookPath, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['CSV', errorsCsvPath, 'text/csv; charset=utf-8'],
  ] as const) {
    const extension = type.toLowerCase();
    scope.get(`${at(SECTION_PATHS.payouts)}/batches/:batchNumber/errors.${extension}`, { schema: { params: BatchParams }, config }, async (request, reply) => {
      const context = consoleContext(request);
      const batchNumber = batchNumberOf(request.params);
      try {
        const file = await batchErrorsDocument(deps, context.lang, context.user.merchantAccountNumber, batchNumber, type);
        return reply
          .header('content-type', contentType)
          .header('content-disposition', `attachment; filename="batch-${batchNumber}-errors.${extension}"`)
          .header('cache-control', 'no-store')
          .send(file);
      } catch (err) {
        // Still being validated (409), or other documents being built (503): say so, with the way back.
        if (!(err instanceof AppError) || (err.kind !== 'conflict' && err.kind !== 'unavailable')) throw err;
        for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
        const message = problemFromAppError(err, context.lang, path(batchNumber), String(request.id)).detail;
        const back = { href: batchPath(batchNumber), text: ct(context.lang, 'payoutActions.errors.back', { number: batchNumber }) };
        return sendHtml(reply, context, err.status, page(RefusalPage({ context, title: ct(context.lang, 'payoutActions.errors.unavailableTitle'), message, back })));
      }
    });
  }
}

const route: RouteModule = (scope, { deps }) => {
  uploadForm(scope, deps);
  uploadRoute(scope, deps);
  errorDocuments(scope, deps);
  liveBatchRoutes(scope, deps);
};
export default route;
