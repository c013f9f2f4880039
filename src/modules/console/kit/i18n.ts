// The console's texts, in English and Chichewa (the API's own messages are in src/http/i18n.ts; the
// tables have the same shape). The kit's texts are here: the frame of every page, roles, filters,
// columns, errors. Each area keeps its own in its texts.ts and gets its `ct` from `areaTexts`, typed
// on the kit's keys and its own, so a page can name no other area's text. Adding a message means
// adding it in both languages: `Entry` makes a missing one a compile error. Texts are plain: pages
// escape them.
import type { Lang } from '../../../http/i18n.ts';

/** One console text in every language. */
export type Entry = Record<Lang, string>;

type Params = Record<string, string | number>;

const KIT_MESSAGES = {
  // the frame of every page
  'layout.skip': { en: 'Skip to the main content', ny: 'Pitani molunjika ku zomwe zili patsamba' },
  'layout.brand': { en: 'OneKhusa merchant console', ny: 'OneKhusa: tsamba la wamalonda' },
  'layout.sandbox': { en: 'Sandbox: test money only', ny: 'Sandbox: ndalama zoyesera zokha' },
  'layout.user': { en: 'Signed in as {name} ({role})', ny: 'Mwalowa ngati {name} ({role})' },
  'layout.merchant': { en: 'Merchant account {number}', ny: 'Akaunti ya wamalonda {number}' },
  'layout.signOut': { en: 'Sign out', ny: 'Tulukani' },
  'layout.language': { en: 'Language', ny: 'Chilankhulo' },
  'layout.navigation': { en: 'Sections', ny: 'Zigawo' },
  'layout.account': { en: 'Your account', ny: 'Akaunti yanu' },
  'layout.menu': { en: 'Menu', ny: 'Menyu' },
  // a held e-mail's notice (mail.ts)
  'mail.openOutbox': { en: 'Open the outbox', ny: 'Tsegulani bokosi la maimelo' },

  // role names by role code (migrations/0008); other roles show their stored name
  'role.MERC_ADMIN': { en: 'Merchant Administrator', ny: 'Woyang\'anira wa wamalonda' },
  'role.MERC_INITIATOR': { en: 'Merchant Initiator', ny: 'Woyambitsa wa wamalonda' },
  'role.MERC_REVIEWER': { en: 'Merchant Reviewer', ny: 'Wowunika wa wamalonda' },
  'role.MERC_APPROVER': { en: 'Merchant Approver', ny: 'Wovomereza wa wamalonda' },
  'role.MERC_VIEWER': { en: 'Merchant Viewer', ny: 'Wowona wa wamalonda' },

  'nav.home': { en: 'Home', ny: 'Poyambira' },
  'nav.collections': { en: 'Collections', ny: 'Zolandiridwa' },
  'nav.payouts': { en: 'Payouts', ny: 'Zotumizidwa' },
  'nav.statements': { en: 'Statements', ny: 'Masitetimenti' },
  'nav.analytics': { en: 'Analytics', ny: 'Kusanthula' },
  'nav.getPaid': { en: 'Get paid', ny: 'Landirani malipiro' },
  'nav.developers': { en: 'Developers', ny: 'Opanga mapulogalamu' },
  'nav.team': { en: 'Team', ny: 'Gulu' },
  'nav.settlement': { en: 'Settlement accounts', ny: 'Maakaunti olandirira' },
  'nav.sandbox': { en: 'Sandbox tools', ny: 'Zida za sandbox' },

  // actions (actions.ts)
  'action.staleForm': { en: 'This form is out of date. Nothing was changed: reload the page and try again.', ny: 'Fomu iyi ndi yakale. Palibe chomwe chasinthidwa: tsegulaninso tsambali ndipo yesaninso.' },
  'action.refused': { en: 'Nothing was changed.', ny: 'Palibe chomwe chasinthidwa.' },
  'section.collections': { en: 'Payments received from customers, each with its ledger lines and events.', ny: 'Malipiro olandiridwa kuchokera kwa makasitomala, ndi mizere ya leja ndi zochitika zake.' },
  'section.payouts': { en: 'Batches and single payouts, their progress and outcomes.', ny: 'Magulu a malipiro ndi malipiro amodzi, momwe akuyendera ndi zotsatira zake.' },
  'section.getPaid': { en: 'Ask a customer to pay: a timed account or a checkout link to share.', ny: 'Pemphani kasitomala kuti alipire: akaunti ya nthawi yochepa kapena ulalo wolipirira kuti mugawane.' },
  'section.developers': { en: 'API keys, webhook subscriptions and their delivery log.', ny: 'Makiyi a API, zolembetsa za webhook ndi mbiri ya zotumizidwa.' },
  'section.team': { en: 'Your users and their roles, and who did what.', ny: 'Ogwiritsa ntchito anu ndi maudindo awo, ndi amene anachita chiyani.' },
  'section.settlement': { en: 'The bank account your collections are settled to.', ny: 'Akaunti ya banki yomwe ndalama zolandiridwa zimatumizidwa.' },
  'section.sandbox': { en: 'Test payments and what each test account number does.', ny: 'Malipiro oyesera ndi zomwe nambala iliyonse ya akaunti yoyesera imachita.' },
  'section.statements': { en: 'Ledger movements for a period, with opening and closing balances, and a CSV download.', ny: 'Kayendedwe ka ndalama pa nthawi inayake, ndi ndalama zoyambira ndi zotsiriza, ndi fayilo ya CSV.' },
  'section.analytics': { en: 'Counts and sums by connector over a range of dates, as charts.', ny: 'Chiwerengero ndi ndalama pa cholumikizira chilichonse pa masiku osankhidwa, mu zithunzi.' },
  'notice.security.decisionsOn': { en: 'Payout decisions are now taken in the console only.', ny: 'Zisankho za malipiro tsopano zimapangidwa patsamba lokha.' },
  'notice.security.decisionsOff': { en: 'The API may take payout decisions again.', ny: 'API ingathenso kupanga zisankho za malipiro.' },

  // error pages
  'error.csrfTitle': { en: 'This form could not be accepted', ny: 'Fomu iyi sinavomerezedwe' },
  'error.csrf': {
    en: 'The form has expired or did not come from this console. Nothing was changed. Go back, reload the page and try again.',
    ny: 'Nthawi ya fomuyi yatha kapena sinachokere patsamba lino. Palibe chomwe chasinthidwa. Bwererani, tsegulaninso tsambalo ndipo yesaninso.',
  },
  'error.forbiddenTitle': { en: 'Not open to your role', ny: 'Sizololedwa pa udindo wanu' },
  'error.forbidden': { en: 'Your role ({role}) does not include this page.', ny: 'Udindo wanu ({role}) suphatikiza tsamba ili.' },
  'error.notFoundTitle': { en: 'Page not found', ny: 'Tsamba silinapezeke' },
  'error.notFound': { en: 'There is no such page in the console.', ny: 'Palibe tsamba lotere.' },
  'error.badRequestTitle': { en: 'The request could not be read', ny: 'Pempholi silinawerengedwe' },
  'error.badRequest': { en: 'Go back, reload the page and try again.', ny: 'Bwererani, tsegulaninso tsambalo ndipo yesaninso.' },
  'error.title': { en: 'Something went wrong', ny: 'Pali vuto' },
  'error.text': { en: 'The page could not be shown right now. Please try again shortly.', ny: 'Tsambali silinathe kuonetsedwa pakali pano. Chonde yesaninso posachedwa.' },
  'error.home': { en: 'Go to the console', ny: 'Pitani ku tsamba la wamalonda' },

  // collections & analytics pages (P1)
  'filter.legend': { en: 'Filters', ny: 'Zosankha' },
  'filter.from': { en: 'From (UTC day)', ny: 'Kuyambira (tsiku la UTC)' },
  'filter.to': { en: 'To (UTC day)', ny: 'Mpaka (tsiku la UTC)' },
  'filter.status': { en: 'Status', ny: 'Momwe zilili' },
  'filter.connector': { en: 'Connector', ny: 'Cholumikizira' },
  'filter.search': { en: 'Reference or customer name', ny: 'Chizindikiro kapena dzina la kasitomala' },
  'filter.searchHint': { en: 'Any part of a transaction, source or request reference, or of the customer\'s name.', ny: 'Gawo lililonse la chizindikiro cha malipiro, cha kumene zachokera kapena cha pempho, kapena la dzina la kasitomala.' },
  'filter.any': { en: 'All', ny: 'Zonse' },
  'filter.submit': { en: 'Show', ny: 'Onetsani' },
  'filter.clear': { en: 'Clear the filters', ny: 'Chotsani zosankha' },
  'filter.problemTitle': { en: 'Check the filters', ny: 'Onaninso zosankha' },
  'filter.invalidValue': { en: '{field}: "{value}" is not valid.', ny: '{field}: "{value}" sicholondola.' },
  'filter.invalidDay': { en: '{field}: "{value}" is not a day (YYYY-MM-DD).', ny: '{field}: "{value}" si tsiku (YYYY-MM-DD).' },
  'filter.rangeReversed': { en: 'The first day ({fromDate}) is after the last day ({toDate}).', ny: 'Tsiku loyamba ({fromDate}) lili pambuyo pa tsiku lomaliza ({toDate}).' },
  'filter.rangeTooLong': { en: 'The range covers {days} days; at most {max} are allowed.', ny: 'Nthawiyi ili ndi masiku {days}; ololedwa ndi {max} okha.' },
  'filter.cursorInvalid': { en: 'This page position does not belong to these filters: start again from the first page.', ny: 'Malo a tsamba awa sagwirizana ndi zosankhazi: yambaninso pa tsamba loyamba.' },
  'filter.limit': { en: 'Rows per page', ny: 'Mizere pa tsamba' },
  'paging.label': { en: 'Pages', ny: 'Masamba' },
  'paging.next': { en: 'Next page', ny: 'Tsamba lotsatira' },
  'paging.first': { en: 'First page', ny: 'Tsamba loyamba' },
  'status.S': { en: 'Successful', ny: 'Zayenda bwino' },
  'status.R': { en: 'Reversed', ny: 'Zabwezedwa' },
  'col.date': { en: 'Date (UTC)', ny: 'Tsiku (UTC)' },
  'col.reference': { en: 'Reference', ny: 'Chizindikiro' },
  'col.customer': { en: 'Customer', ny: 'Kasitomala' },
  'col.connector': { en: 'Connector', ny: 'Cholumikizira' },
  'col.amount': { en: 'Amount', ny: 'Ndalama' },
  'col.fee': { en: 'Fee', ny: 'Malipiro a ntchito' },
  'col.status': { en: 'Status', ny: 'Momwe zilili' },
  'ledger.transfer': { en: 'Transfer', ny: 'Kusamutsa' },
  'ledger.account': { en: 'Account', ny: 'Akaunti' },
  'ledger.yours': { en: 'yours', ny: 'yanu' },
  'transfer.payment': { en: 'Payment', ny: 'Malipiro' },
  'transfer.payrequest': { en: 'Request to pay', ny: 'Pempho la malipiro' },
  'transfer.reversal': { en: 'Reversal', ny: 'Kubwezera' },
  'account.collection': { en: 'Collection', ny: 'Zolandiridwa' },
  'account.disbursement': { en: 'Disbursement', ny: 'Zotumizira' },
  'account.funding': { en: 'Funding', ny: 'Ndalama zoikamo' },
  'account.fees': { en: 'Fees', ny: 'Malipiro a ntchito' },
  'account.customer_payments': { en: 'Customer payments', ny: 'Malipiro a makasitomala' },
  'account.payouts_in_flight': { en: 'Payouts on their way', ny: 'Zotumizidwa zili panjira' },
  'account.payouts_settled': { en: 'Payouts settled', ny: 'Zotumizidwa zomalizidwa' },
  'event.id': { en: 'Event', ny: 'Chochitika' },
  'event.code': { en: 'Code', ny: 'Khodi' },
  'event.deliveries': { en: 'Webhook deliveries', ny: 'Zotumiza ku webhook' },
  'event.deliveriesText': { en: '{succeeded} delivered, {pending} pending, {failed} failed', ny: '{succeeded} zafika, {pending} zikudikira, {failed} zalephera' },
  'event.test': { en: 'test', ny: 'yoyesera' },
  'kind.collections': { en: 'Collections', ny: 'Zolandiridwa' },
  'kind.payouts': { en: 'Payouts', ny: 'Zotumizidwa' },
  // shared by the areas' forms, lists and pages (kit/forms.tsx, lists.tsx, display.tsx, layout.tsx)
  'form.error.amountRequired': { en: 'Enter the amount.', ny: 'Lembani ndalama.' },
  'form.error.amountFormat': { en: 'Enter an amount in digits, with at most 2 decimals, e.g. 2500 or 2500.50.', ny: 'Lembani ndalama mu manambala, osapitirira awiri pambuyo pa kadontho, mwachitsanzo 2500 kapena 2500.50.' },
  'form.error.amountRange': { en: 'The amount must be from {min} to {max}.', ny: 'Ndalama ziyenera kukhala kuyambira {min} mpaka {max}.' },
  'form.error.required': { en: 'Fill this in.', ny: 'Lembani apa.' },
  'form.error.tooLong': { en: 'At most {max} characters.', ny: 'Zilembo {max} zokha basi.' },
  'form.error.connectorRequired': { en: 'Choose the wallet or bank the customer pays from.', ny: 'Sankhani wallet kapena banki yomwe kasitomala akulipirira.' },
  'form.error.connector': { en: 'Choose a wallet or bank from the list.', ny: 'Sankhani wallet kapena banki pa mndandanda.' },
  'form.fixFields': { en: 'Nothing was created. Correct the fields below and send the form again.', ny: 'Palibe chomwe chapangidwa. Konzani mabokosi ali m\'munsiwa ndipo tumizaninso fomu.' },
  'form.amount': { en: 'Amount', ny: 'Ndalama' },
  'form.amountIn': { en: 'Amount ({currency})', ny: 'Ndalama ({currency})' },
  'form.amountHint': { en: 'From {min} to {max}, at most 2 decimals, e.g. 2500 or 2,500.50.', ny: 'Kuyambira {min} mpaka {max}, manambala awiri okha pambuyo pa kadontho, mwachitsanzo 2500 kapena 2,500.50.' },
  'layout.breadcrumbs': { en: 'Where you are', ny: 'Komwe muli' },
  'time.lessThanMinute': { en: 'less than a minute left', ny: 'yatsala pasanathe mphindi imodzi' },
  'time.aboutMinute': { en: 'about 1 minute left', ny: 'yatsala pafupifupi mphindi imodzi' },
  'time.aboutMinutes': { en: 'about {minutes} minutes left', ny: 'zatsala pafupifupi mphindi {minutes}' },
  'list.notYet': { en: 'Not yet', ny: 'Sizinachitike' },
  'list.firstPage': { en: 'First page', ny: 'Tsamba loyamba' },
  'list.nextPage': { en: 'Next page', ny: 'Tsamba lotsatira' },
  'layout.security': { en: 'Security', ny: 'Chitetezo' },
  'time.expired': { en: 'Expired', ny: 'Nthawi yatha' },
} satisfies Record<string, Entry>;

export type KitTextKey = keyof typeof KIT_MESSAGES;

/** A lookup of texts by key, in a language, with {name} placeholders filled from `params`. */
export type Texts<K extends string> = (lang: Lang, key: K, params?: Params) => string;

/** Every table joined so far (the kit's, then each area's as it loads), by its owner's name. */
const TABLES = new Map<string, Readonly<Record<string, Entry>>>([['kit', KIT_MESSAGES]]);
/** Every key of those tables: no key is in two of them. */
const JOINED = new Map<string, Entry>(Object.entries(KIT_MESSAGES));

function fill(entry: Entry, lang: Lang, params: Params): string {
  const template = entry[lang] ?? entry.en;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => (name in params ? String(params[name]) : `{${name}}`));
}

/** The kit's text `key` in `lang`. */
export const ct: Texts<KitTextKey> = (lang, key, params = {}) => fill(KIT_MESSAGES[key], lang, params);

/**
 * `area`'s texts, joined to the console's: its `ct` knows the kit's keys and the area's own. A key
 * another table has already is a programming error, refused when the area loads.
 */
export function areaTexts<T extends Record<string, Entry>>(area: string, table: T): Texts<KitTextKey | (keyof T & string)> {
  for (const key of Object.keys(table)) if (JOINED.has(key)) throw new Error(`console text ${key} (${area}) is already defined`);
  TABLES.set(area, table);
  for (const [key, entry] of Object.entries(table)) JOINED.set(key, entry);
  return (lang, key, params = {}) => fill((table as Record<string, Entry>)[key] ?? KIT_MESSAGES[key as KitTextKey], lang, params);
}

/** The text under `key` in the kit or any area loaded, for keys that come from outside the code (a notice named in an address, an audit action); undefined for any other. */
export function knownText(lang: Lang, key: string, params: Params = {}): string | undefined {
  const entry = JOINED.get(key);
  return entry && fill(entry, lang, params);
}

/** Every table joined so far, by its owner (the kit, then areas as they load): for the test that every text is in every language. */
export function textTables(): ReadonlyMap<string, Readonly<Record<string, Entry>>> {
  return TABLES;
}

/** A role's name in `lang`: from the kit's table by its code, else as stored. */
export function roleName(lang: Lang, roleCode: string, storedName: string): string {
  return knownText(lang, `role.${roleCode}`) ?? storedName;
}
