// What the batch page (payouts/pages/payouts.tsx) shows live, and what follows an upload there:
//   - LiveBatch: the batch's status and figures in a strip at the top, marked for the live script
//     (kit/assets/payouts.js): it opens the batch's event stream (payouts/live-batch.ts), sets these
//     figures' text from each event, announces a change of status politely (role="status"), and
//     reloads the page's regions (#batch-live, #line-results) when the batch changes. Without the
//     script the strip says to refresh, and has the link to do it. Not drawn live once the batch
//     is final: nothing would change.
//   - BatchErrors: inside #batch-live, so a change of state redraws it: once validated, when lines
//     failed, how many, a link to the invalid lines alone (their reasons are in the lines list)
//     and the error workbook (payouts/routes/uploads.ts).
// The texts of the strip are made by liveTexts for the page and for every event alike.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { BATCH, type BatchStatus } from '../../../disbursements/lifecycle.ts';
import type { BatchItem } from '../queries.ts';
import type { LiveFigures } from '../upload-queries.ts';
import { ct } from '../texts.ts';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { moneyText } from '../../kit/display.tsx';

/** Batches in these states change no more: their page is not live. */
export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = [BATCH.completed, BATCH.failed, BATCH.error, BATCH.cancelled, BATCH.rejected];

export const isFinalBatch = (status: BatchStatus) => FINAL_BATCH_STATUSES.includes(status);

const batchUrl = (batchNumber: number) => `${SECTION_PATHS.payouts}/batches/${batchNumber}`;
/** The batch's event stream (text/event-stream). */
export const liveEventsPath = (batchNumber: number) => `${batchUrl(batchNumber)}/events`;
/** The batch's invalid lines as a workbook, and as CSV. */
export const errorsWorkbookPath = (batchNumber: number) => `${batchUrl(batchNumber)}/errors.xlsx`;
export const errorsCsvPath = (batchNumber: number) => `${batchUrl(batchNumber)}/errors.csv`;

/** The ids of the regions the live script reloads when the batch changes (payouts.tsx draws them). */
export const LIVE_REGION_ID = 'batch-live';

/** The figures without the merchant: what the page and an event show alike. */
export type LiveView = Omit<LiveFigures, 'merchantAccountNumber'>;

/** The figures of a batch as the batch page has it (payouts/queries.ts). */
export function liveViewOf(b: BatchItem): LiveView {
  const p = b.progress;
  return {
    batchNumber: b.batchNumber,
    statusCode: b.statusCode,
    levelNumber: b.levelNumber,
    currencyCode: b.currencyCode,
    entries: p.entries,
    invalid: p.invalid,
    valid: p.valid,
    successful: p.successful,
    failed: p.failed,
    reversed: p.reversed,
    final: p.successful + p.failed + p.reversed,
    finalPercent: p.finalPercent,
    totalAmountMinor: b.totals.amountMinor,
    successfulAmountMinor: b.totals.successfulMinor,
  };
}

/** The strip's texts, by the name its elements carry in data-live. */
export interface LiveTexts {
  status: string;
  summary: string;
  progress: string;
}

/** `statusText`: the status's name as the page names it (payouts.tsx batchStatusName). */
export function liveTexts(lang: Lang, f: LiveView, statusText: string): LiveTexts {
  const paying = f.final > 0 || f.statusCode === BATCH.transferring || f.statusCode === BATCH.completed || f.statusCode === BATCH.failed;
  return {
    status: ct(lang, 'payoutActions.live.status', { status: statusText }),
    summary: f.statusCode === BATCH.queued ? ct(lang, 'payoutActions.live.validating', { lines: f.entries }) : ct(lang, 'payoutActions.live.validated', { valid: f.valid, invalid: f.invalid }),
    progress: paying
      ? ct(lang, 'payoutActions.live.progress', {
          final: f.final,
          valid: f.valid,
          percent: f.finalPercent,
          successful: f.successful,
          failed: f.failed,
          paidAmount: moneyText(f.currencyCode, f.successfulAmountMinor),
          totalAmount: moneyText(f.currencyCode, f.totalAmountMinor),
        })
      : '',
  };
}

/** What tells one state of the figures from another: the page and the events compare it. */
export function liveVersion(f: LiveView): string {
  return [f.statusCode, f.valid, f.invalid, f.successful, f.failed, f.reversed].join(':');
}

/** The sentence a screen reader hears when the batch changes status. */
export function liveAnnouncement(lang: Lang, f: LiveView, statusText: string, texts: LiveTexts): string {
  return ct(lang, 'payoutActions.live.announce', { number: f.batchNumber, status: statusText, summary: [texts.summary, texts.progress].filter(Boolean).join('. ') });
}

/** `pagePath`: the batch page's address, which the script reloads (the page may answer a POST at another). */
export function LiveBatch(p: { lang: Lang; view: LiveView; statusText: string; pagePath: string }): SafeHtml {
  const { lang, view } = p;
  const texts = liveTexts(lang, view, p.statusText);
  const live = !isFinalBatch(view.statusCode);
  const attributes = live
    ? {
        'data-live-batch': liveEventsPath(view.batchNumber),
        'data-live-page': p.pagePath,
        'data-live-status': view.statusCode,
        'data-live-version': liveVersion(view),
        'data-text-open': ct(lang, 'payoutActions.live.open'),
        'data-text-reconnecting': ct(lang, 'payoutActions.live.reconnecting'),
        'data-text-paused': ct(lang, 'payoutActions.live.paused'),
        'data-text-unavailable': ct(lang, 'payoutActions.live.unavailable'),
        'data-text-ended': ct(lang, 'payoutActions.live.ended'),
      }
    : {};
  return (
    <section class="live-batch" id="live-batch" aria-label={ct(lang, 'payoutActions.live.label')} {...attributes}>
      <p class="live-figures">
        <span class="live-status" data-live="status" id="live-status">
          {texts.status}
        </span>
        <span class="live-summary" data-live="summary" id="live-summary">
          {texts.summary}
        </span>
        <span class="live-progress" data-live="progress" id="live-progress">
          {texts.progress}
        </span>
      </p>
      <p class="live-note">
        <span data-live-note id="live-note">
          {ct(lang, live ? 'payoutActions.live.static' : 'payoutActions.live.ended')}
        </span>{' '}
        {live ? (
          <a href={batchUrl(view.batchNumber)} id="live-refresh">
            {ct(lang, 'payoutActions.live.refresh')}
          </a>
        ) : null}
      </p>
      <p class="visually-hidden" role="status" data-live-announce id="live-announce" />
    </section>
  );
}

/** The batch's invalid lines, once it is validated: how many, and where they are. */
export function BatchErrors(p: { lang: Lang; batchNumber: number; statusCode: BatchStatus; invalid: number }): SafeHtml | null {
  const { lang, batchNumber } = p;
  // Queued: the strip above says the lines are being checked; none is invalid yet.
  if (p.statusCode === BATCH.queued || p.invalid === 0) return null;
  return (
    <section class="card batch-errors" id="batch-errors" aria-labelledby="batch-errors-title">
      <h2 id="batch-errors-title">{ct(lang, 'payoutActions.errors.title', { count: p.invalid })}</h2>
      <p>{ct(lang, 'payoutActions.errors.text')}</p>
      <ul class="batch-error-links">
        <li>
          <a href={`${batchUrl(batchNumber)}?status=E`} id="show-invalid-lines">
            {ct(lang, 'payoutActions.errors.show')}
          </a>
        </li>
        <li>
          <a class="link-button" href={errorsWorkbookPath(batchNumber)} id="error-workbook" download={`batch-${batchNumber}-errors.xlsx`}>
            {ct(lang, 'payoutActions.errors.workbook')}
          </a>
        </li>
        <li>
          <a href={errorsCsvPath(batchNumber)} id="error-csv" download={`batch-${batchNumber}-errors.csv`}>
            {ct(lang, 'payoutActions.errors.csv')}
          </a>
        </li>
      </ul>
    </section>
  );
}
