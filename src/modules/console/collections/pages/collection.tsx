// One collection: what the API's getTransaction answers about it, the ledger lines it posted (to the
// merchant's accounts and the service's) and the events it raised with their webhook deliveries.
import { Fragment, h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { CollectionDetail, LedgerLine, RaisedEvent } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { COLLECTIONS_PATH, StatusBadge } from './collections.tsx';
import { Money, Time } from '../../kit/display.tsx';

const TRANSFER_KEYS: Record<string, TextKey> = { payment: 'transfer.payment', payrequest: 'transfer.payrequest', reversal: 'transfer.reversal' };
const ACCOUNT_KEYS: Record<string, TextKey> = {
  collection: 'account.collection',
  disbursement: 'account.disbursement',
  funding: 'account.funding',
  fees: 'account.fees',
  customer_payments: 'account.customer_payments',
  payouts_in_flight: 'account.payouts_in_flight',
  payouts_settled: 'account.payouts_settled',
};
const TYPE_KEYS: Record<string, TextKey> = { BAM: 'collection.type.BAM', RTP: 'collection.type.RTP' };

/** A stored code's name in `lang` from `keys`, else the code as it is (a kind added later). */
function labelOr(lang: Lang, keys: Record<string, TextKey>, code: string): string {
  const key = keys[code];
  return key ? ct(lang, key) : code;
}

function Fact(p: { id: string; label: string; children?: SafeHtml | string | null }): SafeHtml {
  return (
    <div class="detail-fact">
      <dt>{p.label}</dt>
      <dd id={p.id}>{p.children}</dd>
    </div>
  );
}

function LedgerTable(p: { lang: Lang; lines: LedgerLine[] }): SafeHtml {
  const { lang } = p;
  return (
    <div class="table-wrap" tabindex="0" role="region" aria-labelledby="ledger-lines-caption">
      <table class="list-table" id="ledger-lines">
        <caption class="visually-hidden" id="ledger-lines-caption">
          {ct(lang, 'collection.ledger')}
        </caption>
        <thead>
          <tr>
            <th scope="col">{ct(lang, 'col.date')}</th>
            <th scope="col">{ct(lang, 'ledger.transfer')}</th>
            <th scope="col">{ct(lang, 'ledger.account')}</th>
            <th scope="col" class="num">
              {ct(lang, 'col.amount')}
            </th>
          </tr>
        </thead>
        <tbody>
          {p.lines.map((l) => (
            <tr>
              <td data-label={ct(lang, 'col.date')}>
                <Time at={l.createdAt} />
              </td>
              <td data-label={ct(lang, 'ledger.transfer')}>
                {labelOr(lang, TRANSFER_KEYS, l.transferType)} <span class="subtle">#{l.transferId}</span>
              </td>
              <td data-label={ct(lang, 'ledger.account')}>
                {labelOr(lang, ACCOUNT_KEYS, l.accountKind)}{' '}
                {l.isMerchantAccount ? <span class="chip">{ct(lang, 'ledger.yours')}</span> : null}
              </td>
              <td data-label={ct(lang, 'col.amount')} class={`num ${l.amountMinor < 0 ? 'out' : 'in'}`}>
                <Money currencyCode={l.currencyCode} minor={l.amountMinor} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function EventsTable(p: { lang: Lang; events: RaisedEvent[] }): SafeHtml {
  const { lang } = p;
  if (p.events.length === 0) return <p id="collection-events-none">{ct(lang, 'collection.noEvents')}</p>;
  return (
    <div class="table-wrap" tabindex="0" role="region" aria-labelledby="collection-events-caption">
      <table class="list-table" id="collection-events">
        <caption class="visually-hidden" id="collection-events-caption">
          {ct(lang, 'collection.events')}
        </caption>
        <thead>
          <tr>
            <th scope="col">{ct(lang, 'event.id')}</th>
            <th scope="col">{ct(lang, 'event.code')}</th>
            <th scope="col">{ct(lang, 'col.date')}</th>
            <th scope="col">{ct(lang, 'event.deliveries')}</th>
          </tr>
        </thead>
        <tbody>
          {p.events.map((e) => (
            <tr>
              <td data-label={ct(lang, 'event.id')}>{e.eventId}</td>
              <td data-label={ct(lang, 'event.code')}>
                <code>{e.eventCode}</code>{' '}
                {e.isTest ? <span class="chip">{ct(lang, 'event.test')}</span> : null}
              </td>
              <td data-label={ct(lang, 'col.date')}>
                <Time at={e.createdAt} />
              </td>
              <td data-label={ct(lang, 'event.deliveries')}>{ct(lang, 'event.deliveriesText', { succeeded: e.deliveries.succeeded, pending: e.deliveries.pending, failed: e.deliveries.failed })}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type Collection = CollectionDetail['collection'];

/** The facts only some collections have: the request it paid, its timed account, its reversal. */
function OptionalFacts(p: { lang: Lang; c: Collection }): SafeHtml {
  const { lang, c } = p;
  return (
    <>
      {c.reference_number ? (
        <Fact id="collection-request-reference" label={ct(lang, 'collection.requestReference')}>
          {c.reference_number}
        </Fact>
      ) : null}
      {c.timed_account_number ? (
        <Fact id="collection-timed-account" label={ct(lang, 'collection.timedAccount')}>
          {c.timed_account_number}
        </Fact>
      ) : null}
      {c.reversed_at ? (
        <Fact id="collection-reversed-at" label={ct(lang, 'collection.reversedAt')}>
          <Time at={c.reversed_at} />
        </Fact>
      ) : null}
      {c.reversal_reason ? (
        <Fact id="collection-reversal-reason" label={ct(lang, 'collection.reversalReason')}>
          {c.reversal_reason}
        </Fact>
      ) : null}
    </>
  );
}

/** What the API's getTransaction answers about the collection, as a list of facts. */
function CollectionDetails(p: { lang: Lang; c: Collection }): SafeHtml {
  const { lang, c } = p;
  return (
    <section class="card" aria-labelledby="collection-details-title">
      <h2 id="collection-details-title">{ct(lang, 'collection.details')}</h2>
      <dl class="detail-facts">
        <Fact id="collection-status" label={ct(lang, 'col.status')}>
          <StatusBadge lang={lang} code={c.status_code} />
        </Fact>
        <Fact id="collection-date" label={ct(lang, 'col.date')}>
          <Time at={c.transaction_date} />
        </Fact>
        <Fact id="collection-type" label={ct(lang, 'collection.type')}>
          {labelOr(lang, TYPE_KEYS, c.transaction_code)}
        </Fact>
        <Fact id="collection-customer" label={ct(lang, 'col.customer')}>
          {c.source_account_name}
        </Fact>
        <Fact id="collection-customer-account" label={ct(lang, 'collection.customerAccount')}>
          {c.source_account_number}
        </Fact>
        <Fact id="collection-connector" label={ct(lang, 'col.connector')}>
          {c.connector_name}
        </Fact>
        <Fact id="collection-amount" label={ct(lang, 'collection.amount')}>
          <Money currencyCode={c.currency_code} minor={c.amount_minor} />
        </Fact>
        <Fact id="collection-fee" label={ct(lang, 'col.fee')}>
          <Money currencyCode={c.currency_code} minor={c.fee_minor} />
        </Fact>
        <Fact id="collection-net" label={ct(lang, 'collection.net')}>
          <Money currencyCode={c.currency_code} minor={c.amount_minor - c.fee_minor} />
        </Fact>
        <Fact id="collection-description" label={ct(lang, 'collection.description')}>
          {c.transaction_description}
        </Fact>
        <Fact id="collection-source-reference" label={ct(lang, 'collection.sourceReference')}>
          {c.source_reference_number}
        </Fact>
        <OptionalFacts lang={lang} c={c} />
      </dl>
    </section>
  );
}

export function CollectionPage(p: { context: ConsoleContext; detail: CollectionDetail }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const c = p.detail.collection;
  const title = ct(lang, 'collection.title', { reference: c.transaction_reference_number });
  return (
    <Layout context={context} title={title} section="collections">
      <p class="back">
        <a href={COLLECTIONS_PATH}>{ct(lang, 'collection.back')}</a>
      </p>
      <h1 id="collection-title">{title}</h1>
      <CollectionDetails lang={lang} c={c} />
      <section class="card" aria-labelledby="collection-ledger-title">
        <h2 id="collection-ledger-title">{ct(lang, 'collection.ledger')}</h2>
        <p class="hint">{ct(lang, 'collection.ledgerIntro')}</p>
        <LedgerTable lang={lang} lines={p.detail.ledgerLines} />
      </section>
      <section class="card" aria-labelledby="collection-events-title">
        <h2 id="collection-events-title">{ct(lang, 'collection.events')}</h2>
        <EventsTable lang={lang} events={p.detail.events} />
      </section>
    </Layout>
  );
}
