// The upload of a payout file (payouts/routes/uploads.ts): a plain multipart form that works without
// JavaScript (the CSRF token and the form key come before the file, so that they arrive first),
// which the payouts script (kit/assets/payouts.js, data-upload-form) sends through XMLHttpRequest
// instead, to show the upload's progress and then the reading of the file. A refused file comes
// back as this page with the reason: per field (the file, the date), and for a file whose rows
// break the line schema, one message per line (the API's own messages, files.ts readBatchFile).
// Who may upload: the roles that capture payouts (mayUpload); others get 403 and see no link.
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { FILE_COLUMNS } from '../../../disbursements/file-reader.ts';
import { MAX_BATCH_LINES } from '../../../disbursements/schemas.ts';
import { FormKey } from '../../kit/actions.tsx';
import { mayCapture } from '../actions.ts';
import { CSRF_FIELD, type ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { fitsDateInput } from '../../kit/display.tsx';

export const UPLOAD_PATH = `${SECTION_PATHS.payouts}/upload`;
export const TEMPLATE_PATH = `${UPLOAD_PATH}/template.csv`;

/**
 * Who may upload: the roles that capture payouts (the same rule as a single payout's form,
 * payouts/actions.ts mayCapture): not the viewer, who sees the money and changes nothing.
 */
export const mayUpload = (roleCode: string) => mayCapture(roleCode);

/** Megabytes for people, one decimal at most ("32", "0.5"). */
export function megabytes(bytes: number): string {
  return String(Math.floor((bytes / (1024 * 1024)) * 10) / 10);
}

/** The link to the upload page, for the roles that may upload (the batches page shows it). */
export function UploadLink(p: { context: ConsoleContext }): SafeHtml | null {
  if (!mayUpload(p.context.user.roleCode)) return null;
  return (
    <p class="page-actions">
      <a class="button" href={UPLOAD_PATH} id="upload-link">
        {ct(p.context.lang, 'payoutActions.upload.link')}
      </a>
    </p>
  );
}

export interface UploadFormProps {
  context: ConsoleContext;
  /** The most bytes a file may have (the API's batch body limit). */
  limitBytes: number;
  scheduleMaxDays: number;
  values?: { scheduledDate?: string };
  /** Messages by field name: file, scheduledDate. */
  errors?: { file?: string; scheduledDate?: string };
  /** Why the file was refused, when it was (shown at the top, with the field messages). */
  message?: string;
  /** The file's rows that break the line schema: one message each. */
  lineProblems?: string[];
}

function FieldError(p: { id: string; message?: string }): SafeHtml | null {
  return p.message ? (
    <p class="field-error" id={p.id}>
      {p.message}
    </p>
  ) : null;
}

/** The ids that describe a control, space-separated: undefined when there is none. */
function describedBy(...ids: Array<string | false>): string | undefined {
  return ids.filter(Boolean).join(' ') || undefined;
}

function Breadcrumbs(p: { lang: Lang; title: string }): SafeHtml {
  const { lang, title } = p;
  return (
    <nav class="breadcrumbs" aria-label={ct(lang, 'payouts.breadcrumbs')}>
      <ol>
        <li>
          <a href={SECTION_PATHS.payouts}>{ct(lang, 'payouts.title')}</a>
        </li>
        <li>
          <span aria-current="page">{title}</span>
        </li>
      </ol>
    </nav>
  );
}

/** Why the file was refused, at the top: the refusal, each field's message, and one per row that breaks the line schema. */
function UploadErrors(p: { lang: Lang; message?: string; errors: { file?: string; scheduledDate?: string }; lineProblems?: string[] }): SafeHtml | null {
  const { lang, errors } = p;
  if (!(p.message || errors.file || errors.scheduledDate || p.lineProblems?.length)) return null;
  return (
    <div class="alert alert-error upload-errors" role="alert" id="upload-errors" tabindex="-1">
      <p>{p.message ?? ct(lang, 'payoutActions.upload.refused')}</p>
      {errors.file ? <p>{errors.file}</p> : null}
      {errors.scheduledDate ? <p>{errors.scheduledDate}</p> : null}
      {p.lineProblems?.length ? (
        <>
          <p>{ct(lang, 'payoutActions.upload.lineProblems')}</p>
          <ul class="line-problems" id="line-problems">
            {p.lineProblems.map((problem) => (
              <li>{problem}</li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

function FileField(p: { lang: Lang; megabytes: string; error?: string; lineProblems?: string[] }): SafeHtml {
  const { lang } = p;
  return (
    <div class="field">
      <label for="upload-file">{ct(lang, 'payoutActions.upload.file')}</label>
      <input
        id="upload-file"
        name="file"
        type="file"
        required
        accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        aria-invalid={p.error || p.lineProblems?.length ? 'true' : undefined}
        aria-describedby={describedBy(p.error ? 'upload-file-error' : false, 'upload-file-hint')}
      />
      <FieldError id="upload-file-error" message={p.error} />
      <p class="hint" id="upload-file-hint">
        {ct(lang, 'payoutActions.upload.fileHint', { megabytes: p.megabytes })}
      </p>
    </div>
  );
}

function DateField(p: { lang: Lang; date: string; error?: string; scheduleMaxDays: number }): SafeHtml {
  const { lang } = p;
  return (
    <div class="field">
      <label for="scheduled-date">{ct(lang, 'payoutActions.upload.scheduledDate')}</label>
      <input
        id="scheduled-date"
        name="scheduledDate"
        type={fitsDateInput(p.date) ? 'date' : 'text'}
        value={p.date}
        maxlength="10"
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy(p.error ? 'scheduled-date-error' : false, 'scheduled-date-hint')}
      />
      <FieldError id="scheduled-date-error" message={p.error} />
      <p class="hint" id="scheduled-date-hint">
        {ct(lang, 'payoutActions.upload.scheduledHint', { days: p.scheduleMaxDays })}
      </p>
    </div>
  );
}

/** Shown by the upload script while it sends the file and the server reads it (hidden without JavaScript). */
function UploadProgress(p: { lang: Lang }): SafeHtml {
  return (
    <div class="upload-progress" id="upload-progress" data-upload-progress hidden>
      <progress id="upload-bar" max="100" value="0" aria-label={ct(p.lang, 'payoutActions.upload.progressLabel')} data-upload-bar />
      <p class="upload-status" id="upload-status" role="status" data-upload-status />
    </div>
  );
}

/** The form: the CSRF token and the form key before the file, so that they arrive first (kit/multipart.ts). */
function UploadForm(p: UploadFormProps): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const errors = p.errors ?? {};
  const mb = megabytes(p.limitBytes);
  return (
    <form
      class="card upload-form"
      id="upload-form"
      method="post"
      action={UPLOAD_PATH}
      enctype="multipart/form-data"
      data-upload-form
      data-max-bytes={p.limitBytes}
      data-text-uploading={ct(lang, 'payoutActions.upload.uploading', { percent: '{percent}' })}
      data-text-reading={ct(lang, 'payoutActions.upload.reading')}
      data-text-failed={ct(lang, 'payoutActions.upload.failed')}
      data-text-too-large={ct(lang, 'payoutActions.upload.tooLarge', { megabytes: mb })}
    >
      <input type="hidden" name={CSRF_FIELD} value={context.csrfToken} />
      <FormKey />
      <input type="hidden" name="lang" value={lang} />
      <FileField lang={lang} megabytes={mb} error={errors.file} lineProblems={p.lineProblems} />
      <DateField lang={lang} date={p.values?.scheduledDate ?? ''} error={errors.scheduledDate} scheduleMaxDays={p.scheduleMaxDays} />
      <UploadProgress lang={lang} />
      <button class="button" type="submit" id="upload-submit">
        {ct(lang, 'payoutActions.upload.submit')}
      </button>
    </form>
  );
}

/** The file's columns, and a template to start from. */
function UploadHelp(p: { lang: Lang }): SafeHtml {
  const { lang } = p;
  return (
    <section class="card upload-help" aria-labelledby="upload-columns-title">
      <h2 id="upload-columns-title">{ct(lang, 'payoutActions.upload.columns')}</h2>
      <ul class="upload-columns" id="upload-columns">
        {FILE_COLUMNS.map((column) => (
          <li>
            <code>{column}</code>
            {column === 'transactionDescription' ? ` ${ct(lang, 'payoutActions.upload.optional')}` : null}
          </li>
        ))}
      </ul>
      <p>
        <a href={TEMPLATE_PATH} id="upload-template" download="payouts-template.csv">
          {ct(lang, 'payoutActions.upload.template')}
        </a>
      </p>
    </section>
  );
}

export function UploadPage(p: UploadFormProps): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const title = ct(lang, 'payoutActions.upload.title');
  return (
    <Layout context={context} title={title} section="payouts">
      <Breadcrumbs lang={lang} title={title} />
      <h1>{title}</h1>
      <p class="lead">{ct(lang, 'payoutActions.upload.intro', { lines: MAX_BATCH_LINES.toLocaleString('en'), megabytes: megabytes(p.limitBytes) })}</p>
      <UploadErrors lang={lang} message={p.message} errors={p.errors ?? {}} lineProblems={p.lineProblems} />
      <div class="upload-layout">
        <UploadForm {...p} />
        <UploadHelp lang={lang} />
      </div>
    </Layout>
  );
}

/** A refusal that is not a form's (the error workbook of a batch still being checked, or while others are being built). */
export function RefusalPage(p: { context: ConsoleContext; title: string; message: string; back: { href: string; text: string } }): SafeHtml {
  return (
    <Layout context={p.context} title={p.title} section="payouts">
      <section class="message" aria-labelledby="message-title">
        <h1 id="message-title">{p.title}</h1>
        <p id="message-text">{p.message}</p>
        <p>
          <a href={p.back.href} id="message-back">
            {p.back.text}
          </a>
        </p>
      </section>
    </Layout>
  );
}
