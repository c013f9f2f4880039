// The console's home page: the merchant's three balances, read from the same place as the API's
// GET /merchants/accounts/get (merchants/repository.ts findMerchant: the ledger accounts' balances,
// in the merchant's currency), and links to the sections the user's role may see.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import { formatMajor } from '../../../../lib/money.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout, SECTION_LABELS } from '../../kit/layout.tsx';
import { SECTION_PATHS, type Section } from '../../kit/paths.ts';
import { maySee, sectionsFor } from '../../kit/roles.ts';
import type { Attention, HomeSummary } from '../queries.ts';
import { Activity, AttentionCard } from './activity.tsx';

export interface Balances {
  currencyCode: string;
  accountMinor: number;
  collectionMinor: number;
  disbursementMinor: number;
}

const SECTION_TEXTS: Partial<Record<Section, TextKey>> = {
  collections: 'section.collections',
  payouts: 'section.payouts',
  statements: 'section.statements',
  analytics: 'section.analytics',
  getPaid: 'section.getPaid',
  developers: 'section.developers',
  team: 'section.team',
  settlement: 'section.settlement',
  sandbox: 'section.sandbox',
};

function Balance(p: { id: string; label: string; hint: string; currencyCode: string; minor: number }) {
  return (
    <li class={`balance balance-${p.id}`} id={`balance-${p.id}`}>
      <span class="balance-label">{p.label}</span>
      <span class="balance-amount">
        <span class="currency">{p.currencyCode}</span>{' '}
        <span class="amount">{formatMajor(p.minor)}</span>
      </span>
      <span class="balance-hint">{p.hint}</span>
    </li>
  );
}

export function HomePage(p: { context: ConsoleContext; balances: Balances; summary: HomeSummary; attention: Attention }): SafeHtml {
  const { context, balances } = p;
  const lang = context.lang;
  const role = context.user.roleCode;
  const sections = sectionsFor(role, context.sandbox).filter((s) => SECTION_TEXTS[s] !== undefined);
  // Each flow for a role that may see its section (roles.ts); an unknown role sees the balances only.
  const kinds = (['collections', 'payouts'] as const).filter((s) => maySee(role, s, context.sandbox));
  return (
    <Layout context={context} title={ct(lang, 'home.title')} section="home">
      <h1>{ct(lang, 'home.greeting', { name: context.user.firstName })}</h1>
      <h2 id="balances-title">{ct(lang, 'home.balances')}</h2>
      <ul class="balances" aria-labelledby="balances-title">
        <Balance id="account" label={ct(lang, 'home.account')} hint={ct(lang, 'home.accountHint')} currencyCode={balances.currencyCode} minor={balances.accountMinor} />
        <Balance id="collection" label={ct(lang, 'home.collection')} hint={ct(lang, 'home.collectionHint')} currencyCode={balances.currencyCode} minor={balances.collectionMinor} />
        <Balance id="disbursement" label={ct(lang, 'home.disbursement')} hint={ct(lang, 'home.disbursementHint')} currencyCode={balances.currencyCode} minor={balances.disbursementMinor} />
      </ul>
      <AttentionCard lang={lang} attention={p.attention} showPayouts={maySee(role, 'payouts', context.sandbox)} linkDeliveries={maySee(role, 'developers', context.sandbox)} />
      <Activity lang={lang} summary={p.summary} kinds={[...kinds]} />
      {sections.length > 0 ? (
        <section class="card" aria-labelledby="sections-title">
          <h2 id="sections-title">{ct(lang, 'home.sections')}</h2>
          <ul class="section-links">
            {sections.map((section) => (
              <li>
                <a href={SECTION_PATHS[section]}>{ct(lang, SECTION_LABELS[section])}</a>
                <p>{ct(lang, SECTION_TEXTS[section]!)}</p>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </Layout>
  );
}
