// The payouts pages (read-only in part 1): the batches with their progress and totals, and one
// batch with its header and its lines (searchable). The single payouts' list, which shows the same
// rows (PayoutHead, PayoutCells), is with the other single-payout pages (single-payout.tsx). Every
// list is keyset paged; its filters and pager are GET forms and links that htmx turns into a swap
// of the results region (kit/lists.tsx). Figures come from payouts/queries.ts; statuses and errors
// are named in the page's language (a line's error through the API's own message table:
// disbursements/service.ts lineError).
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { BATCH, type BatchAction, type BatchStatus } from '../../../disbursements/lifecycle.ts';
import { lineError } from '../../../disbursements/service.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import { BATCH_STATUSES, LINE_STATUSES, type BatchDetail, type BatchItem, type BatchLine, type LineStatus, type PayoutItem } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { Cell, Choice, Money, Pager, Results, StatusBar, swapping, When, withQuery, type BarPart } from '../../kit/lists.tsx';
import { BatchActions, type ActionProblem } from './payout-actions.tsx';
import type { DebitPreview } from '../../../disbursements/preview.ts';
import { BatchErrors, LIVE_REGION_ID, LiveBatch, liveViewOf } from './live-batch.tsx';
import { UploadLink } from './upload.tsx';
import { Alerts } from '../../kit/display.tsx';
import { ExportLinks, exportUrl } from '../../kit/export-links.tsx';

export const PAYOUTS_PATH = SECTION_PATHS.payouts;
export const SINGLE_PAYOUTS_PATH = `${PAYOUTS_PATH}/single`;
export const batchPath = (batchNumber: number) => `${PAYOUTS_PATH}/batches/${batchNumber}`;
/** A batch's lines as a file: this, then .csv or .xlsx (kit/export-links.tsx exportUrl). */
export const batchLinesExportBase = (batchNumber: number) => `${batchPath(batchNumber)}/lines`;

/** The ids of the regions htmx swaps (the routes answer an htmx request aimed at one with it alone). */
export const REGIONS = { batches: 'batch-results', lines: 'line-results', single: 'single-results' } as const;

// ---------------------------------------------------------------------------------------------
// Names

/** A batch status as E4 describes it, in `lang` (P reads differently at each level). */
export function batchStatusName(lang: Lang, status: BatchStatus, levelNumber: number): string {
  const key = status === BATCH.pending ? `payouts.batchStatus.P${Math.min(Math.max(levelNumber, 1), 3)}` : `payouts.batchStatus.${status}`;
  return ct(lang, key as TextKey);
}

export function lineStatusName(lang: Lang, status: string): string {
  return (LINE_STATUSES as readonly string[]).includes(status) ? ct(lang, `payouts.lineStatus.${status}` as TextKey) : status;
}

/** Which part of a progress bar a line status belongs to. */
const BAR_KIND: Record<LineStatus, string> = { S: 'bar-successful', F: 'bar-failed', R: 'bar-reversed', E: 'bar-invalid', X: 'bar-stopped', C: 'bar-stopped', P: 'bar-open', D: 'bar-open', T: 'bar-open' };

function StatusBadge(p: { kind: 'batch' | 'line'; code: string; text: string }): SafeHtml {
  return <span class={`status status-${p.kind}-${p.code}`}>{p.text}</span>;
}

export function Tabs(p: { lang: Lang; current: 'batches' | 'single' }): SafeHtml {
  return (
    <nav class="tabs" aria-label={ct(p.lang, 'payouts.kinds')}>
      <ul>
        <li>
          <a href={PAYOUTS_PATH} aria-current={p.current === 'batches' ? 'page' : undefined} id="tab-batches">
            {ct(p.lang, 'payouts.batchesTab')}
          </a>
        </li>
        <li>
          <a href={SINGLE_PAYOUTS_PATH} aria-current={p.current === 'single' ? 'page' : undefined} id="tab-single">
            {ct(p.lang, 'payouts.singleTab')}
          </a>
        </li>
      </ul>
    </nav>
  );
}

// ---------------------------------------------------------------------------------------------
// Batches

export interface BatchFilterValues {
  status?: string;
  after?: string;
}

function Progress(p: { lang: Lang; batch: BatchItem }): SafeHtml {
  const { progress } = p.batch;
  const final = progress.successful + progress.failed + progress.reversed;
  const parts: BarPart[] = [
    { kind: 'bar-successful', count: progress.successful },
    { kind: 'bar-failed', count: progress.failed },
    { kind: 'bar-reversed', count: progress.reversed },
    { kind: 'bar-open', count: progress.notFinal },
  ];
  const counts: Array<[string, number, TextKey]> = [
    ['successful', progress.successful, 'payouts.count.successful'],
    ['failed', progress.failed, 'payouts.count.failed'],
    ['reversed', progress.reversed, 'payouts.count.reversed'],
    ['open', progress.notFinal, 'payouts.count.open'],
    ['invalid', progress.invalid, 'payouts.count.invalid'],
  ];
  return (
    <div class="progress">
      <StatusBar parts={parts} />
      <span class="progress-summary">
        {p.batch.statusCode === BATCH.queued ? ct(p.lang, 'payouts.validating', { lines: progress.entries }) : ct(p.lang, 'payouts.final', { final, valid: progress.valid, percent: progress.finalPercent })}
      </span>
      <ul class="counts">
        {counts
          .filter(([, count]) => count > 0)
          .map(([kind, count, key]) => (
            <li class={`count count-${kind}`}>{ct(p.lang, key, { count })}</li>
          ))}
      </ul>
    </div>
  );
}

/** A list's download links (kit/export-links.tsx), with its filters: every row they keep. */
export function PayoutExportLinks(p: { lang: Lang; id: string; base: string; filters: Record<string, string | undefined>; hint: TextKey }): SafeHtml {
  return (
    <ExportLinks
      id={p.id}
      csvUrl={exportUrl(p.base, 'csv', p.filters)}
      xlsxUrl={exportUrl(p.base, 'xlsx', p.filters)}
      csvText={ct(p.lang, 'payouts.downloadCsv')}
      xlsxText={ct(p.lang, 'payouts.downloadXlsx')}
      hint={ct(p.lang, p.hint)}
    />
  );
}

export function BatchesResults(p: { lang: Lang; page: Page<BatchItem>; filter: BatchFilterValues; swapped: boolean }): SafeHtml {
  const { lang, page, filter } = p;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <Results id={REGIONS.batches} title={ct(lang, 'payouts.batches')} swapped={p.swapped}>
      {page.items.length > 0 ? <PayoutExportLinks lang={lang} id="batches-export" base={PAYOUTS_PATH} filters={{ status: filter.status }} hint="payouts.downloadBatchesHint" /> : null}
      {page.items.length === 0 ? (
        <p class="empty" id="batches-empty">
          {ct(lang, 'payouts.noBatches')}
        </p>
      ) : (
        <table class="stack-table" id="batches-table">
          <caption class="visually-hidden">{ct(lang, 'payouts.batchesCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{label('payouts.col.batch')}</th>
              <th scope="col">{label('payouts.col.captured')}</th>
              <th scope="col">{label('payouts.col.status')}</th>
              <th scope="col">{label('payouts.col.level')}</th>
              <th scope="col">{label('payouts.col.progress')}</th>
              <th scope="col" class="num">
                {label('payouts.col.total')}
              </th>
              <th scope="col" class="num">
                {label('payouts.col.fees')}
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((b) => (
              <tr id={`batch-${b.batchNumber}`} data-batch-number={b.batchNumber}>
                <Cell row label={label('payouts.col.batch')}>
                  <a href={batchPath(b.batchNumber)}>{ct(lang, 'payouts.batchNumber', { number: b.batchNumber })}</a>
                </Cell>
                <Cell label={label('payouts.col.captured')}>
                  <When at={b.dateCaptured} lang={lang} />
                  <span class="sub">{ct(lang, 'payouts.by', { who: b.capturedBy })}</span>
                </Cell>
                <Cell label={label('payouts.col.status')}>
                  <StatusBadge kind="batch" code={b.statusCode} text={batchStatusName(lang, b.statusCode, b.levelNumber)} />
                </Cell>
                <Cell label={label('payouts.col.level')}>{b.levelNumber}</Cell>
                <Cell label={label('payouts.col.progress')}>
                  <Progress lang={lang} batch={b} />
                </Cell>
                <Cell label={label('payouts.col.total')} num>
                  <Money minor={b.totals.amountMinor} currencyCode={b.currencyCode} />
                </Cell>
                <Cell label={label('payouts.col.fees')} num>
                  <Money minor={b.totals.feeMinor} currencyCode={b.currencyCode} />
                </Cell>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        lang={lang}
        label={ct(lang, 'payouts.batchesPages')}
        target={REGIONS.batches}
        firstUrl={withQuery(PAYOUTS_PATH, { status: filter.status })}
        nextUrl={page.next ? withQuery(PAYOUTS_PATH, { status: filter.status, after: page.next }) : null}
        onFirstPage={!filter.after}
      />
    </Results>
  );
}

export function batchStatusOptions(lang: Lang): Array<[string, string]> {
  return [
    ['', ct(lang, 'payouts.allStatuses')],
    ...BATCH_STATUSES.map((s): [string, string] => [s, s === BATCH.pending ? ct(lang, 'payouts.batchStatus.P') : batchStatusName(lang, s, 1)]),
  ];
}

export function lineStatusOptions(lang: Lang): Array<[string, string]> {
  return [['', ct(lang, 'payouts.allStatuses')], ...LINE_STATUSES.map((s): [string, string] => [s, lineStatusName(lang, s)])];
}

export function BatchesPage(p: { context: ConsoleContext; page: Page<BatchItem>; filter: BatchFilterValues }): SafeHtml {
  const lang = p.context.lang;
  return (
    <Layout context={p.context} title={ct(lang, 'payouts.title')} section="payouts">
      <h1>{ct(lang, 'payouts.title')}</h1>
      <Tabs lang={lang} current="batches" />
      <UploadLink context={p.context} />
      <p class="lead">{ct(lang, 'payouts.batchesIntro')}</p>
      <form class="filters card" method="get" action={PAYOUTS_PATH} {...swapping(PAYOUTS_PATH, REGIONS.batches)} aria-label={ct(lang, 'payouts.filter')}>
        <Choice id="batch-status" name="status" label={ct(lang, 'payouts.col.status')} value={p.filter.status} options={batchStatusOptions(lang)} />
        <div class="filter-actions">
          <button class="button" type="submit" id="batch-filter-submit">
            {ct(lang, 'payouts.apply')}
          </button>
        </div>
      </form>
      <BatchesResults lang={lang} page={p.page} filter={p.filter} swapped={false} />
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// One batch

function Step(p: { lang: Lang; id: string; label: string; who: string | null; at: Date | null; extra?: SafeHtml | null }): SafeHtml | null {
  if (!p.who && !p.at) return null;
  return (
    <div class="fact" id={`batch-${p.id}`}>
      <dt>{p.label}</dt>
      <dd>
        {p.who ? <span class="who">{p.who}</span> : null}
        {p.at ? (
          <span class="when">
            <When at={p.at} lang={p.lang} />
          </span>
        ) : null}
        {p.extra ?? null}
      </dd>
    </div>
  );
}

function Fact(p: { id: string; label: string; children?: SafeHtml | string | number | null }): SafeHtml {
  return (
    <div class="fact" id={`batch-${p.id}`}>
      <dt>{p.label}</dt>
      <dd>{p.children}</dd>
    </div>
  );
}

/** The batch's facts: its status, authorisation and schedule, who took each step and when, and its error. */
function BatchDetails(p: { lang: Lang; batch: BatchDetail }): SafeHtml {
  const { lang, batch } = p;
  const dates = batch.dates;
  return (
    <section class="card" aria-labelledby="batch-facts-title">
      <h2 id="batch-facts-title">{ct(lang, 'payouts.details')}</h2>
      <dl class="facts">
        <Fact id="status" label={ct(lang, 'payouts.col.status')}>
          <StatusBadge kind="batch" code={batch.statusCode} text={batchStatusName(lang, batch.statusCode, batch.levelNumber)} />
        </Fact>
        <Fact id="level" label={ct(lang, 'payouts.authorisation')}>
          {ct(lang, `payouts.level.${Math.min(Math.max(batch.levelNumber, 1), 3)}` as TextKey)}
        </Fact>
        <Fact id="upload" label={ct(lang, 'payouts.uploadType')}>
          {batch.uploadType}
        </Fact>
        <Fact id="schedule" label={ct(lang, 'payouts.schedule')}>
          {batch.isBatchScheduled && batch.scheduledDate ? ct(lang, 'payouts.scheduledFor', { date: batch.scheduledDate }) : ct(lang, 'payouts.notScheduled')}
        </Fact>
        <Step lang={lang} id="captured" label={ct(lang, 'payouts.captured')} who={batch.capturedBy} at={batch.dateCaptured} />
        <Step lang={lang} id="reviewed" label={ct(lang, 'payouts.reviewed')} who={batch.reviewedBy} at={dates.reviewed} />
        <Step lang={lang} id="approved" label={ct(lang, 'payouts.approved')} who={batch.approvedBy} at={dates.approved} />
        <Step
          lang={lang}
          id="rejected"
          label={ct(lang, 'payouts.rejected')}
          who={batch.rejectedBy}
          at={dates.rejected}
          extra={batch.rejectionReason ? <span class="sub">{ct(lang, 'payouts.reason', { reason: batch.rejectionReason })}</span> : null}
        />
        <Step lang={lang} id="cancelled" label={ct(lang, 'payouts.cancelled')} who={batch.cancelledBy} at={dates.cancelled} />
        <Step lang={lang} id="transferred" label={ct(lang, 'payouts.transferred')} who={batch.transferredBy} at={batch.dateTransferred} />
        <Step lang={lang} id="completed" label={ct(lang, 'payouts.completed')} who={null} at={batch.dateCompleted} />
        {batch.errorMessage ? (
          <Fact id="error" label={ct(lang, 'payouts.error')}>
            <span class="error-text">{batch.errorMessage}</span>
          </Fact>
        ) : null}
      </dl>
    </section>
  );
}

function BatchTotals(p: { lang: Lang; batch: BatchDetail }): SafeHtml {
  const { lang, batch } = p;
  const currency = batch.currencyCode;
  return (
    <section class="card" aria-labelledby="batch-totals-title">
      <h2 id="batch-totals-title">{ct(lang, 'payouts.totals')}</h2>
      <dl class="facts totals">
        <Fact id="total-amount" label={ct(lang, 'payouts.totalAmount')}>
          <Money minor={batch.totals.amountMinor} currencyCode={currency} />
        </Fact>
        <Fact id="total-fees" label={ct(lang, 'payouts.col.fees')}>
          <Money minor={batch.totals.feeMinor} currencyCode={currency} />
        </Fact>
        <Fact id="total-successful" label={ct(lang, 'payouts.successfulAmount')}>
          <Money minor={batch.totals.successfulMinor} currencyCode={currency} />
        </Fact>
        <Fact id="total-failed" label={ct(lang, 'payouts.failedAmount')}>
          <Money minor={batch.totals.failedMinor} currencyCode={currency} />
        </Fact>
        <Fact id="total-reversed" label={ct(lang, 'payouts.reversedAmount')}>
          <Money minor={batch.totals.reversedMinor} currencyCode={currency} />
        </Fact>
      </dl>
    </section>
  );
}

/** The batch's lines counted by status: one row each, with their amount and fees. */
function LineStatusTable(p: { lang: Lang; batch: BatchDetail }): SafeHtml {
  const { lang, batch } = p;
  const currency = batch.currencyCode;
  return (
    <table class="stack-table compact" id="line-statuses">
      <caption class="visually-hidden">{ct(lang, 'payouts.byStatus')}</caption>
      <thead>
        <tr>
          <th scope="col">{ct(lang, 'payouts.col.status')}</th>
          <th scope="col" class="num">
            {ct(lang, 'payouts.col.lines')}
          </th>
          <th scope="col" class="num">
            {ct(lang, 'payouts.col.amount')}
          </th>
          <th scope="col" class="num">
            {ct(lang, 'payouts.col.fees')}
          </th>
        </tr>
      </thead>
      <tbody>
        {batch.lineStatuses.map((s) => (
          <tr id={`line-status-${s.statusCode}`}>
            <Cell row label={ct(lang, 'payouts.col.status')}>
              <span class={`swatch ${BAR_KIND[s.statusCode]}`} aria-hidden="true" />
              {lineStatusName(lang, s.statusCode)}
            </Cell>
            <Cell label={ct(lang, 'payouts.col.lines')} num>
              {s.lines}
            </Cell>
            <Cell label={ct(lang, 'payouts.col.amount')} num>
              <Money minor={s.amountMinor} currencyCode={currency} />
            </Cell>
            <Cell label={ct(lang, 'payouts.col.fees')} num>
              <Money minor={s.feeMinor} currencyCode={currency} />
            </Cell>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The batch's progress: a bar of its lines by status (final outcomes first, then open, stopped, invalid), its summary, the table. */
function BatchByStatus(p: { lang: Lang; batch: BatchDetail }): SafeHtml {
  const { lang, batch } = p;
  const parts: BarPart[] = ['S', 'F', 'R', 'P', 'D', 'T', 'X', 'C', 'E']
    .map((code) => batch.lineStatuses.find((s) => s.statusCode === code))
    .filter((s) => s !== undefined)
    .map((s) => ({ kind: BAR_KIND[s.statusCode], count: s.lines }));
  return (
    <section class="card card-wide" aria-labelledby="batch-progress-title">
      <h2 id="batch-progress-title">{ct(lang, 'payouts.byStatus')}</h2>
      <div class="progress">
        <StatusBar parts={parts} />
        <span class="progress-summary" id="batch-progress">
          {batch.statusCode === BATCH.queued
            ? ct(lang, 'payouts.validating', { lines: batch.progress.entries })
            : ct(lang, 'payouts.final', { final: batch.progress.valid - batch.progress.notFinal, valid: batch.progress.valid, percent: batch.progress.finalPercent })}
        </span>
      </div>
      {batch.lineStatuses.length === 0 ? (
        <p class="empty">{ct(lang, 'payouts.noLinesYet')}</p>
      ) : (
        <LineStatusTable lang={lang} batch={batch} />
      )}
    </section>
  );
}

/** What the batch page shows above its lines (redrawn live with them: the page's LIVE_REGION_ID). */
function BatchHeader(p: { lang: Lang; batch: BatchDetail }): SafeHtml {
  return (
    <div class="batch-header">
      <BatchDetails lang={p.lang} batch={p.batch} />
      <BatchTotals lang={p.lang} batch={p.batch} />
      <BatchByStatus lang={p.lang} batch={p.batch} />
    </div>
  );
}

export interface LineFilterValues {
  search?: string;
  status?: string;
  after?: string;
}

/** What a payout came to: why it is invalid, else the connector's answer, else nothing yet. */
function Outcome(p: { lang: Lang; item: PayoutItem }): SafeHtml {
  const { lang, item } = p;
  const error = lineError(lang, { error_code: item.errorCode, error_params: item.errorParams });
  if (error) return <span class="error-text">{error}</span>;
  if (item.responseCode || item.responseMessage) {
    return (
      <span class="outcome">
        {item.responseCode ? <span class="code">{item.responseCode}</span> : null}
        {item.responseCode && item.responseMessage ? ' ' : null}
        {item.responseMessage ?? ''}
        {item.dateReversed ? (
          <span class="sub">
            {ct(lang, 'payouts.reversedOn')} <When at={item.dateReversed} lang={lang} />
          </span>
        ) : null}
      </span>
    );
  }
  return <span class="muted">{ct(lang, 'payouts.noOutcome')}</span>;
}


/** The search above a list of payout lines (a batch's, or the single payouts): ids start with `prefix`. */
export function LineSearch(p: { lang: Lang; prefix: 'line' | 'single'; action: string; region: string; label: string; filter: LineFilterValues }): SafeHtml {
  const { lang, prefix } = p;
  return (
    <form class="filters card" method="get" action={p.action} {...swapping(p.action, p.region)} role="search" aria-label={p.label}>
      <div class="field field-grow">
        <label for={`${prefix}-search`}>{ct(lang, 'payouts.search')}</label>
        <input type="search" id={`${prefix}-search`} name="search" value={p.filter.search ?? ''} maxlength="100" aria-describedby={`${prefix}-search-hint`} />
      </div>
      <Choice id={`${prefix}-status`} name="status" label={ct(lang, 'payouts.col.status')} value={p.filter.status} options={lineStatusOptions(lang)} />
      <div class="filter-actions">
        <button class="button" type="submit" id={`${prefix}-filter-submit`}>
          {ct(lang, 'payouts.apply')}
        </button>
      </div>
      <p class="hint field-full" id={`${prefix}-search-hint`}>
        {ct(lang, 'payouts.searchHint')}
      </p>
    </form>
  );
}
/** The cells every payout list shows after its first one(s). */
export function PayoutCells(p: { lang: Lang; item: PayoutItem; extraStatus?: string | null }): SafeHtml {
  const { lang, item } = p;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <>
      <Cell label={label('payouts.col.reference')}>
        <span class="reference">{item.transactionReferenceNumber}</span>
        <span class="sub">{ct(lang, 'payouts.yourReference', { reference: item.sourceReferenceNumber })}</span>
      </Cell>
      <Cell label={label('payouts.col.beneficiary')}>
        <span class="beneficiary-name">{item.beneficiaryName}</span>
        <span class="sub">{item.beneficiaryAccountNumber}</span>
      </Cell>
      <Cell label={label('payouts.col.connector')}>{item.connectorName || String(item.connectorId)}</Cell>
      <Cell label={label('payouts.col.amount')} num>
        {/* An invalid line whose amount was not one has none: its reason (Outcome) quotes what was written. */}
        {item.amountMinor === null ? <span class="muted">{ct(lang, 'payouts.noAmount')}</span> : <Money minor={item.amountMinor} currencyCode={item.currencyCode} />}
      </Cell>
      <Cell label={label('payouts.col.fee')} num>
        <Money minor={item.feeMinor} currencyCode={item.currencyCode} />
      </Cell>
      <Cell label={label('payouts.col.status')}>
        <StatusBadge kind="line" code={item.statusCode} text={lineStatusName(lang, item.statusCode)} />
        {p.extraStatus ? <span class="sub">{p.extraStatus}</span> : null}
      </Cell>
      <Cell label={label('payouts.col.outcome')}>
        <Outcome lang={lang} item={item} />
      </Cell>
    </>
  );
}

export function PayoutHead(p: { lang: Lang; first: TextKey }): SafeHtml {
  const label = (key: TextKey) => ct(p.lang, key);
  return (
    <thead>
      <tr>
        <th scope="col">{label(p.first)}</th>
        <th scope="col">{label('payouts.col.reference')}</th>
        <th scope="col">{label('payouts.col.beneficiary')}</th>
        <th scope="col">{label('payouts.col.connector')}</th>
        <th scope="col" class="num">
          {label('payouts.col.amount')}
        </th>
        <th scope="col" class="num">
          {label('payouts.col.fee')}
        </th>
        <th scope="col">{label('payouts.col.status')}</th>
        <th scope="col">{label('payouts.col.outcome')}</th>
      </tr>
    </thead>
  );
}

export function LinesResults(p: { lang: Lang; batchNumber: number; page: Page<BatchLine>; filter: LineFilterValues; swapped: boolean }): SafeHtml {
  const { lang, page, filter } = p;
  const base = batchPath(p.batchNumber);
  const filtered = Boolean(filter.search || filter.status);
  const fromFile = page.items.some((line) => line.fileRow !== null);
  return (
    <Results id={REGIONS.lines} title={ct(lang, 'payouts.lines')} swapped={p.swapped}>
      {page.items.length > 0 ? (
        <PayoutExportLinks lang={lang} id="lines-export" base={batchLinesExportBase(p.batchNumber)} filters={{ search: filter.search, status: filter.status }} hint="payouts.downloadLinesHint" />
      ) : null}
      {page.items.length === 0 ? (
        <p class="empty" id="lines-empty">
          {ct(lang, filtered ? 'payouts.noLinesMatch' : 'payouts.noLinesYet')}
        </p>
      ) : (
        <table class="stack-table" id="lines-table">
          <caption class="visually-hidden">{ct(lang, 'payouts.linesCaption', { number: p.batchNumber })}</caption>
          {/* A file's batch numbers its lines as the file's rows, as the upload's messages and the invalid-lines file do. */}
          <PayoutHead lang={lang} first={fromFile ? 'payouts.col.row' : 'payouts.col.line'} />
          <tbody>
            {page.items.map((line) => (
              <tr id={`line-${line.lineNumber}`} data-reference={line.transactionReferenceNumber}>
                <Cell row label={ct(lang, fromFile ? 'payouts.col.row' : 'payouts.col.line')}>
                  {line.fileRow ?? line.lineNumber}
                </Cell>
                <PayoutCells lang={lang} item={line} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        lang={lang}
        label={ct(lang, 'payouts.linesPages')}
        target={REGIONS.lines}
        firstUrl={withQuery(base, { search: filter.search, status: filter.status })}
        nextUrl={page.next ? withQuery(base, { search: filter.search, status: filter.status, after: page.next }) : null}
        onFirstPage={!filter.after}
      />
    </Results>
  );
}

export function BatchPage(p: {
  context: ConsoleContext;
  batch: BatchDetail;
  lines: Page<BatchLine>;
  filter: LineFilterValues;
  actionProblem?: ActionProblem;
  notice?: string;
  /** What transferring its funds would debit, and whether the page answers for that step (payout-actions.tsx). */
  transfer?: DebitPreview;
  confirming?: BatchAction;
}): SafeHtml {
  const lang = p.context.lang;
  const { batch } = p;
  const base = batchPath(batch.batchNumber);
  const title = ct(lang, 'payouts.batchNumber', { number: batch.batchNumber });
  return (
    <Layout context={p.context} title={title} section="payouts">
      <nav class="breadcrumbs" aria-label={ct(lang, 'payouts.breadcrumbs')}>
        <ol>
          <li>
            <a href={PAYOUTS_PATH}>{ct(lang, 'payouts.title')}</a>
          </li>
          <li>
            <span aria-current="page">{title}</span>
          </li>
        </ol>
      </nav>
      <h1 id="batch-title">{title}</h1>
      <Alerts notice={p.notice} />
      <LiveBatch lang={lang} view={liveViewOf(batch)} statusText={batchStatusName(lang, batch.statusCode, batch.levelNumber)} pagePath={base} />
      {/* Redrawn by the live script when the batch changes (payouts/pages/live-batch.tsx): what depends on its state. */}
      <div id={LIVE_REGION_ID} class="batch-live">
        <BatchErrors lang={lang} batchNumber={batch.batchNumber} statusCode={batch.statusCode} invalid={batch.progress.invalid} />
        <BatchActions context={p.context} batch={batch} problem={p.actionProblem} transfer={p.transfer} confirming={p.confirming} />
        <BatchHeader lang={lang} batch={batch} />
      </div>
      <LineSearch lang={lang} prefix="line" action={base} region={REGIONS.lines} label={ct(lang, 'payouts.searchLines')} filter={p.filter} />
      <LinesResults lang={lang} batchNumber={batch.batchNumber} page={p.lines} filter={p.filter} swapped={false} />
    </Layout>
  );
}
