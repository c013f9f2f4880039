// The home page's figures and to-dos: today's and the last 30 days' collections and payouts (home/queries.ts
// homeSummary: counts, successful amounts, success rate) as a table, with the days as a bar chart and,
// behind a disclosure, as a table; and what needs this user (home/queries.ts attention): batches and single
// payouts waiting for their review, approval or transfer, and failed webhook deliveries.
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { formatMajor } from '../../../../lib/money.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { HOME_DAYS, type Attention, type DayFigures, type Flow, type HomeSummary } from '../queries.ts';
import { ct, type TextKey } from '../texts.ts';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { BarChart } from '../../kit/chart.tsx';
import { Breakable, moneyText, percentText, utcMinute } from '../../kit/display.tsx';

/** The payouts section's batch page (the payouts pages build it). */
export function batchPath(batchNumber: number): string {
  return `${SECTION_PATHS.payouts}/batches/${batchNumber}`;
}

/** The single payouts list, searched for one reference. */
export function singlePayoutPath(transactionReferenceNumber: string): string {
  return `${SECTION_PATHS.payouts}/single?search=${encodeURIComponent(transactionReferenceNumber)}`;
}

type Kind = 'collections' | 'payouts';
const KIND_LABELS: Record<Kind, TextKey> = { collections: 'kind.collections', payouts: 'kind.payouts' };

function rateText(lang: Lang, d: DayFigures): string {
  return d.successRatePercent === null ? ct(lang, 'home.noRate') : `${percentText(d.successRatePercent)} %`;
}

/** 2026-11-25 → 11-25: short enough for the chart's axis. */
const shortDay = (day: string) => day.slice(5);

function SummaryRow(p: { lang: Lang; id: string; period: string; d: DayFigures; currencyCode: string }): SafeHtml {
  const { lang, d } = p;
  return (
    <tr id={p.id}>
      <th scope="row">{p.period}</th>
      <td class="num" data-label={ct(lang, 'home.final')}>
        {d.finalCount}
      </td>
      <td class="num" data-label={ct(lang, 'home.successful')}>
        {d.successfulCount}
      </td>
      <td class="num" data-label={ct(lang, 'home.failed')}>
        {d.failedCount}
      </td>
      <td class="num" data-label={ct(lang, 'home.reversed')}>
        {d.reversedCount}
      </td>
      <td class="num" data-label={ct(lang, 'home.amount')}>
        {moneyText(p.currencyCode, d.successfulMinor)}
      </td>
      <td class="num" data-label={ct(lang, 'home.successRate')}>
        {rateText(lang, d)}
      </td>
    </tr>
  );
}

/** A column of figures' heading. */
function FigureHead(p: { lang: Lang; label: TextKey }): SafeHtml {
  return (
    <th scope="col" class="num">
      {ct(p.lang, p.label)}
    </th>
  );
}

/** Today's and the range's figures of one kind, a row each. */
function FlowSummary(p: { lang: Lang; kind: Kind; name: string; flow: Flow; currencyCode: string }): SafeHtml {
  const { lang, kind, flow, currencyCode } = p;
  return (
    <div class="table-wrap" tabindex="0" role="region" aria-labelledby={`flow-${kind}-table-caption`}>
      <table class="list-table figures-table" id={`flow-${kind}-table`}>
        <caption class="visually-hidden" id={`flow-${kind}-table-caption`}>
          {ct(lang, 'home.tableCaption', { kind: p.name, days: HOME_DAYS })}
        </caption>
        <thead>
          <tr>
            <th scope="col">{ct(lang, 'home.period')}</th>
            <FigureHead lang={lang} label="home.final" />
            <FigureHead lang={lang} label="home.successful" />
            <FigureHead lang={lang} label="home.failed" />
            <FigureHead lang={lang} label="home.reversed" />
            <FigureHead lang={lang} label="home.amount" />
            <FigureHead lang={lang} label="home.successRate" />
          </tr>
        </thead>
        <tbody>
          <SummaryRow lang={lang} id={`flow-${kind}-today`} period={ct(lang, 'home.today')} d={flow.today} currencyCode={currencyCode} />
          <SummaryRow lang={lang} id={`flow-${kind}-total`} period={ct(lang, 'home.lastDays', { days: HOME_DAYS })} d={flow.total} currencyCode={currencyCode} />
        </tbody>
      </table>
    </div>
  );
}

/** Every day of the range, behind a disclosure: the chart's figures as a table. */
function DailyFigures(p: { lang: Lang; kind: Kind; name: string; days: DayFigures[]; range: { from: string; to: string } }): SafeHtml {
  const { lang, kind } = p;
  return (
    <details class="figures-details">
      <summary>{ct(lang, 'home.dailyCaption', { kind: p.name, ...p.range })}</summary>
      <div class="table-wrap" tabindex="0" role="region" aria-labelledby={`flow-${kind}-days-caption`}>
        <table class="figures-table" id={`flow-${kind}-days`}>
          <caption class="visually-hidden" id={`flow-${kind}-days-caption`}>
            {ct(lang, 'home.dailyCaption', { kind: p.name, ...p.range })}
          </caption>
          <thead>
            <tr>
              <th scope="col">{ct(lang, 'home.day')}</th>
              <FigureHead lang={lang} label="home.final" />
              <FigureHead lang={lang} label="home.successful" />
              <FigureHead lang={lang} label="home.failed" />
              <FigureHead lang={lang} label="home.reversed" />
              <FigureHead lang={lang} label="home.amount" />
            </tr>
          </thead>
          <tbody>
            {p.days.map((d) => (
              <tr>
                <th scope="row">{d.day}</th>
                <td class="num">{d.finalCount}</td>
                <td class="num">{d.successfulCount}</td>
                <td class="num">{d.failedCount}</td>
                <td class="num">{d.reversedCount}</td>
                <td class="num">{formatMajor(d.successfulMinor)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function FlowCard(p: { lang: Lang; kind: Kind; flow: Flow; summary: HomeSummary }): SafeHtml {
  const { lang, kind, flow, summary } = p;
  const name = ct(lang, KIND_LABELS[kind]);
  const currencyCode = summary.balances.currencyCode;
  const range = { from: summary.fromDate, to: summary.toDate };
  return (
    <section class="card flow" id={`flow-${kind}`} aria-labelledby={`flow-${kind}-title`}>
      <h3 id={`flow-${kind}-title`}>{name}</h3>
      <FlowSummary lang={lang} kind={kind} name={name} flow={flow} currencyCode={currencyCode} />
      {flow.total.finalCount > 0 ? (
        <figure class="chart-figure">
          <figcaption>{ct(lang, 'home.chartTitle', { kind: name, currency: currencyCode })}</figcaption>
          <BarChart
            options={{
              id: `flow-${kind}-chart`,
              title: ct(lang, 'home.chartTitle', { kind: name, currency: currencyCode }),
              description: ct(lang, 'home.chartDesc', range),
              data: flow.days.map((d) => ({ label: shortDay(d.day), value: d.successfulMinor / 100 })),
            }}
          />
        </figure>
      ) : (
        // Thirty empty days are no picture: a sentence says it in less room.
        <p class="chart-none" id={`flow-${kind}-none`}>
          {ct(lang, 'home.noneInDays', { kind: name, days: HOME_DAYS })}
        </p>
      )}
      <DailyFigures lang={lang} kind={kind} name={name} days={flow.days} range={range} />
    </section>
  );
}

/** Collections and payouts, each only for a role that may see its section. */
export function Activity(p: { lang: Lang; summary: HomeSummary; kinds: Kind[] }): SafeHtml | null {
  if (p.kinds.length === 0) return null;
  return (
    <section class="activity" aria-labelledby="activity-title">
      <h2 id="activity-title">{ct(p.lang, 'home.activity')}</h2>
      <p class="hint">{ct(p.lang, 'home.activityIntro')}</p>
      <div class="flows">
        {p.kinds.map((kind) => (
          <FlowCard lang={p.lang} kind={kind} flow={p.summary[kind]} summary={p.summary} />
        ))}
      </div>
    </section>
  );
}

const ACTION_KEYS: Record<string, TextKey> = { review: 'home.action.review', approve: 'home.action.approve', transferFunds: 'home.action.transferFunds' };

function MoreListed(p: { lang: Lang; shown: number; count: number }): SafeHtml | null {
  return p.count > p.shown ? <p class="hint">{ct(p.lang, 'home.moreWaiting', { shown: p.shown, count: p.count })}</p> : null;
}

/** A delivery's page in the developers' section (developers/routes/webhooks.ts). */
function deliveryPath(deliveryId: number): string {
  return `${SECTION_PATHS.developers}/webhooks/deliveries/${deliveryId}`;
}

/** Batches waiting for this user's review, approval or transfer (the first ones, with how many in all). */
function WaitingBatches(p: { lang: Lang; batches: Attention['batches'] }): SafeHtml {
  const { lang, batches } = p;
  return (
    <>
      <h3 id="attention-batches-title">{ct(lang, 'home.batches', { count: batches.count })}</h3>
      <ul class="attention-list" id="attention-batches" aria-labelledby="attention-batches-title">
        {batches.items.map((b) => (
          <li>
            <a href={batchPath(b.batchNumber)}>{ct(lang, 'home.batch', { number: b.batchNumber })}</a> <span class="chip chip-action">{ct(lang, ACTION_KEYS[b.action])}</span>
            <span class="attention-facts">
              {ct(lang, 'home.batchFacts', {
                level: b.levelNumber,
                entries: b.numberOfEntries,
                currency: b.currencyCode,
                amount: formatMajor(b.totalAmountMinor),
                by: b.capturedBy,
                date: utcMinute(b.dateCaptured),
              })}
            </span>
          </li>
        ))}
      </ul>
      <MoreListed lang={lang} shown={batches.items.length} count={batches.count} />
    </>
  );
}

/** Single payouts waiting for this user's review or approval. */
function WaitingSingles(p: { lang: Lang; singlePayouts: Attention['singlePayouts'] }): SafeHtml {
  const { lang, singlePayouts } = p;
  return (
    <>
      <h3 id="attention-singles-title">{ct(lang, 'home.singles', { count: singlePayouts.count })}</h3>
      <ul class="attention-list" id="attention-singles" aria-labelledby="attention-singles-title">
        {singlePayouts.items.map((s) => (
          <li>
            <a class="reference" href={singlePayoutPath(s.transactionReferenceNumber)}>
              {s.transactionReferenceNumber}
            </a>{' '}
            <span class="chip chip-action">{ct(lang, ACTION_KEYS[s.action])}</span>
            <span class="attention-facts">
              {ct(lang, 'home.singleFacts', {
                beneficiary: s.beneficiaryName,
                connector: s.connectorName,
                currency: s.currencyCode,
                amount: formatMajor(s.amountMinor),
                by: s.capturedBy,
                date: utcMinute(s.dateCreated),
              })}
            </span>
          </li>
        ))}
      </ul>
      <MoreListed lang={lang} shown={singlePayouts.items.length} count={singlePayouts.count} />
    </>
  );
}

/** Webhook deliveries that gave up; each links to its page when the user may open the developers' section. */
function FailedDeliveries(p: { lang: Lang; failedDeliveries: Attention['failedDeliveries']; linkDeliveries: boolean }): SafeHtml {
  const { lang, failedDeliveries } = p;
  return (
    <>
      <h3 id="attention-deliveries-title">{ct(lang, 'home.failedDeliveries', { count: failedDeliveries.count })}</h3>
      <ul class="attention-list" id="attention-deliveries" aria-labelledby="attention-deliveries-title">
        {failedDeliveries.items.map((d) => (
          <li>
            {p.linkDeliveries ? (
              <a href={deliveryPath(d.deliveryId)}>
                <code>{d.eventCode}</code>
              </a>
            ) : (
              <code>{d.eventCode}</code>
            )}{' '}
            <span class="wrap">
              <Breakable text={d.callbackUrl} />
            </span>
            <span class="attention-facts">
              {ct(lang, 'home.deliveryFacts', {
                attempts: d.totalAttempts,
                answer: d.lastHttpStatus !== null ? String(d.lastHttpStatus) : (d.lastError?.slice(0, 200) ?? ct(lang, 'home.noAnswer')),
                date: utcMinute(d.completedAt ?? d.createdAt),
              })}
            </span>
          </li>
        ))}
      </ul>
      <MoreListed lang={lang} shown={failedDeliveries.items.length} count={failedDeliveries.count} />
    </>
  );
}

/** `linkDeliveries`: the user may open the developers' section, where each failed delivery can be read and redelivered. */
export function AttentionCard(p: { lang: Lang; attention: Attention; showPayouts: boolean; linkDeliveries: boolean }): SafeHtml {
  const { lang } = p;
  const { batches, singlePayouts, failedDeliveries } = p.attention;
  const showBatches = p.showPayouts && batches.count > 0;
  const showSingles = p.showPayouts && singlePayouts.count > 0;
  const nothing = !showBatches && !showSingles && failedDeliveries.count === 0;
  return (
    <section class="card attention" id="attention" aria-labelledby="attention-title">
      <h2 id="attention-title">{ct(lang, 'home.attention')}</h2>
      {nothing ? <p id="attention-nothing">{ct(lang, 'home.nothing')}</p> : null}
      {showBatches ? <WaitingBatches lang={lang} batches={batches} /> : null}
      {showSingles ? <WaitingSingles lang={lang} singlePayouts={singlePayouts} /> : null}
      {failedDeliveries.count > 0 ? <FailedDeliveries lang={lang} failedDeliveries={failedDeliveries} linkDeliveries={p.linkDeliveries} /> : null}
    </section>
  );
}
