// The home area's texts, in English and Chichewa (kit/i18n.ts joins them to the console's own).
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const HOME_MESSAGES = {
  // home
  'home.title': { en: 'Home', ny: 'Poyambira' },
  'home.greeting': { en: 'Hello {name}', ny: 'Moni {name}' },
  'home.balances': { en: 'Balances', ny: 'Ndalama zomwe zilipo' },
  'home.account': { en: 'Account balance', ny: 'Ndalama zonse za akaunti' },
  'home.accountHint': { en: 'Collection and disbursement together', ny: 'Zolandiridwa ndi zotumizira pamodzi' },
  'home.collection': { en: 'Collection balance', ny: 'Ndalama zolandiridwa' },
  'home.collectionHint': { en: 'Received from customers, less fees', ny: 'Zolandiridwa kuchokera kwa makasitomala, kuchotsa malipiro a ntchito' },
  'home.disbursement': { en: 'Disbursement balance', ny: 'Ndalama zotumizira' },
  'home.disbursementHint': { en: 'Available for payouts', ny: 'Zilipo zotumizira malipiro' },
  'home.sections': { en: 'Go to', ny: 'Pitani ku' },

  'home.activity': { en: 'Collections and payouts', ny: 'Zolandiridwa ndi zotumizidwa' },
  'home.activityIntro': { en: 'Days in UTC; payouts count on the day they became final.', ny: 'Masiku ali mu UTC; zotumizidwa zimawerengedwa pa tsiku limene zinamalizidwa.' },
  'home.today': { en: 'Today', ny: 'Lero' },
  'home.lastDays': { en: 'Last {days} days', ny: 'Masiku {days} apitawa' },
  'home.period': { en: 'Period', ny: 'Nthawi' },
  'home.final': { en: 'Final', ny: 'Zomalizidwa' },
  'home.successful': { en: 'Successful', ny: 'Zayenda bwino' },
  'home.failed': { en: 'Failed', ny: 'Zalephera' },
  'home.reversed': { en: 'Reversed', ny: 'Zabwezedwa' },
  'home.amount': { en: 'Successful amount', ny: 'Ndalama zayenda bwino' },
  'home.successRate': { en: 'Success rate', ny: 'Zayenda bwino pa 100' },
  'home.noRate': { en: 'none final', ny: 'palibe zomalizidwa' },
  'home.tableCaption': { en: '{kind}: today and the last {days} days', ny: '{kind}: lero ndi masiku {days} apitawa' },
  'home.chartTitle': { en: '{kind}: successful amount per day ({currency})', ny: '{kind}: ndalama zayenda bwino pa tsiku ({currency})' },
  'home.chartDesc': { en: 'Successful amounts per UTC day, from {from} to {to}.', ny: 'Ndalama zayenda bwino pa tsiku lililonse la UTC, kuyambira {from} mpaka {to}.' },
  'home.dailyCaption': { en: '{kind} per day, from {from} to {to}', ny: '{kind} pa tsiku, kuyambira {from} mpaka {to}' },
  'home.noneInDays': { en: '{kind}: none final in the last {days} days.', ny: '{kind}: palibe zomalizidwa m\'masiku {days} apitawa.' },
  'home.day': { en: 'Day', ny: 'Tsiku' },
  'home.attention': { en: 'Needs your attention', ny: 'Zikufuna chidwi chanu' },
  'home.nothing': { en: 'Nothing is waiting for you.', ny: 'Palibe chomwe chikukudikirani.' },
  'home.batches': { en: 'Batches waiting for you ({count})', ny: 'Magulu akukudikirani ({count})' },
  'home.singles': { en: 'Single payouts waiting for you ({count})', ny: 'Malipiro amodzi akukudikirani ({count})' },
  'home.batch': { en: 'Batch {number}', ny: 'Gulu {number}' },
  'home.action.review': { en: 'to review', ny: 'kuti muwunike' },
  'home.action.approve': { en: 'to approve', ny: 'kuti muvomereze' },
  'home.action.transferFunds': { en: 'to transfer the funds', ny: 'kuti mutumize ndalama' },
  'home.batchFacts': { en: 'Level {level} · {entries} lines · {currency} {amount} · captured by {by} on {date}', ny: 'Mlingo {level} · mizere {entries} · {currency} {amount} · inalembedwa ndi {by} pa {date}' },
  'home.singleFacts': { en: '{beneficiary} · {connector} · {currency} {amount} · captured by {by} on {date}', ny: '{beneficiary} · {connector} · {currency} {amount} · inalembedwa ndi {by} pa {date}' },
  'home.failedDeliveries': { en: 'Failed webhook deliveries ({count})', ny: 'Zotumiza ku webhook zalephera ({count})' },
  'home.deliveryFacts': { en: '{attempts} attempts; last answer: {answer}; ended {date}', ny: 'Kuyesa {attempts}; yankho lomaliza: {answer}; zinatha {date}' },
  'home.noAnswer': { en: 'none', ny: 'palibe' },
  'home.moreWaiting': { en: 'The newest {shown} of {count} are listed.', ny: 'Atsopano {shown} mwa {count} ali pamndandanda.' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('home', HOME_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
