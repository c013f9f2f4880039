// The analytics area's texts, in English and Chichewa (kit/i18n.ts joins them to the console's own).
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const ANALYTICS_MESSAGES = {
  'analytics.title': { en: 'Analytics', ny: 'Kusanthula' },
  'analytics.intro': { en: 'Counts and sums by connector over a range of UTC days (at most 366), as the API\'s analytics answer them. Payouts count on the day they became final.', ny: 'Chiwerengero ndi ndalama pa cholumikizira chilichonse pa masiku a UTC (osapitirira 366), monga momwe API ikuyankhira. Zotumizidwa zimawerengedwa pa tsiku limene zinamalizidwa.' },
  'analytics.range': { en: 'From {from} to {to} (UTC)', ny: 'Kuyambira {from} mpaka {to} (UTC)' },
  'analytics.collections': { en: 'Collections', ny: 'Zolandiridwa' },
  'analytics.payouts': { en: 'Payouts', ny: 'Zotumizidwa' },
  'analytics.countTitle': { en: '{kind}: transactions by connector', ny: '{kind}: chiwerengero pa cholumikizira' },
  'analytics.countDesc': { en: 'Final transactions (successful, failed and reversed) per connector, from {from} to {to}.', ny: 'Zomalizidwa (zayenda bwino, zalephera ndi zabwezedwa) pa cholumikizira chilichonse, kuyambira {from} mpaka {to}.' },
  'analytics.sumTitle': { en: '{kind}: amounts by connector ({currency})', ny: '{kind}: ndalama pa cholumikizira ({currency})' },
  'analytics.sumDesc': { en: 'Amounts of final transactions per connector in {currency}, from {from} to {to}.', ny: 'Ndalama za zomalizidwa pa cholumikizira chilichonse mu {currency}, kuyambira {from} mpaka {to}.' },
  'analytics.tableCaption': { en: '{kind} by connector, from {from} to {to}', ny: '{kind} pa cholumikizira, kuyambira {from} mpaka {to}' },
  'analytics.successRate': { en: 'Success rate {rate} %', ny: 'Zayenda bwino {rate} %' },
  'analytics.trend': { en: 'Transactions against the {days} days before: {trend} %', ny: 'Chiwerengero poyerekeza ndi masiku {days} apitawo: {trend} %' },
  'analytics.noneChart': { en: 'No transactions in this range', ny: 'Palibe kanthu pa nthawiyi' },
  'analytics.successful': { en: 'Successful', ny: 'Zayenda bwino' },
  'analytics.failed': { en: 'Failed', ny: 'Zalephera' },
  'analytics.total': { en: 'All final', ny: 'Zonse zomalizidwa' },
  'analytics.count': { en: 'Number', ny: 'Chiwerengero' },
  'analytics.amount': { en: 'Amount', ny: 'Ndalama' },
  'analytics.idle': { en: 'Without transactions in this range: {names}.', ny: 'Zopanda kanthu pa nthawiyi: {names}.' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('analytics', ANALYTICS_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
