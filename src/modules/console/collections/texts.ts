// The collections area's texts, in English and Chichewa (kit/i18n.ts joins them to the console's own).
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const COLLECTION_MESSAGES = {
  'collections.title': { en: 'Collections', ny: 'Zolandiridwa' },
  'collections.intro': { en: 'Payments received from your customers, newest first. Days and times are in UTC.', ny: 'Malipiro olandiridwa kuchokera kwa makasitomala anu, atsopano poyamba. Masiku ndi nthawi zili mu UTC.' },
  'collections.results': { en: 'Results', ny: 'Zotsatira' },
  'collections.caption': { en: 'Collections, newest first', ny: 'Zolandiridwa, zatsopano poyamba' },
  'collections.shown': { en: '{count} collections shown, newest first.', ny: 'Zolandiridwa {count} zikuonetsedwa, zatsopano poyamba.' },
  'collections.shownOne': { en: '1 collection shown.', ny: 'Cholandiridwa chimodzi chikuonetsedwa.' },
  'collections.shownMore': { en: '{count} collections shown, newest first; more on the next page.', ny: 'Zolandiridwa {count} zikuonetsedwa, zatsopano poyamba; zina zili pa tsamba lotsatira.' },
  'collections.none': { en: 'No collections match these filters.', ny: 'Palibe zolandiridwa zogwirizana ndi zosankhazi.' },
  'collections.noneYet': { en: 'No collections yet.', ny: 'Palibe zolandiridwa pakadali pano.' },
  'collections.downloadCsv': { en: 'Download CSV', ny: 'Tsitsani CSV' },
  'collections.downloadXlsx': { en: 'Download Excel', ny: 'Tsitsani Excel' },
  'collections.downloadHint': { en: 'Every collection these filters keep, not only this page.', ny: 'Zolandiridwa zonse zogwirizana ndi zosankhazi, osati za patsamba lino lokha.' },

  'collection.title': { en: 'Collection {reference}', ny: 'Cholandiridwa {reference}' },
  'collection.back': { en: 'Back to the collections', ny: 'Bwererani ku zolandiridwa' },
  'collection.details': { en: 'Details', ny: 'Tsatanetsatane' },
  'collection.type': { en: 'Type', ny: 'Mtundu' },
  'collection.type.BAM': { en: 'Direct payment', ny: 'Malipiro achindunji' },
  'collection.type.RTP': { en: 'Request to pay', ny: 'Pempho la malipiro' },
  'collection.customerAccount': { en: 'Customer account', ny: 'Akaunti ya kasitomala' },
  'collection.amount': { en: 'Amount paid', ny: 'Ndalama zolipiridwa' },
  'collection.net': { en: 'Received (amount less fee)', ny: 'Zolandiridwa (kuchotsa malipiro a ntchito)' },
  'collection.description': { en: 'Description', ny: 'Kufotokozera' },
  'collection.sourceReference': { en: 'Source reference', ny: 'Chizindikiro cha kumene zachokera' },
  'collection.requestReference': { en: 'Your request reference', ny: 'Chizindikiro cha pempho lanu' },
  'collection.timedAccount': { en: 'Timed account', ny: 'Akaunti yanthawi' },
  'collection.reversedAt': { en: 'Reversed (UTC)', ny: 'Zinabwezedwa (UTC)' },
  'collection.reversalReason': { en: 'Reason for the reversal', ny: 'Chifukwa chobwezera' },
  'collection.ledger': { en: 'Ledger lines', ny: 'Mizere ya leja' },
  'collection.ledgerIntro': { en: 'Every entry this collection posted, to your accounts and the service\'s: money in is positive, money out negative.', ny: 'Zolemba zonse za cholandiridwachi, mu akaunti zanu ndi za ntchitoyi: ndalama zolowa ndi zabwino, zotuluka ndi zochotsera.' },
  'collection.events': { en: 'Events raised', ny: 'Zochitika zomwe zinatumizidwa' },
  'collection.noEvents': { en: 'This collection raised no events.', ny: 'Cholandiridwachi sichinatumize zochitika.' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('collections', COLLECTION_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
