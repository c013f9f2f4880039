// The statements area's texts, in English and Chichewa (kit/i18n.ts joins them to the console's own).
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const STATEMENT_MESSAGES = {
  'statements.title': { en: 'Statements', ny: 'Masitetimenti' },
  'statements.intro': {
    en: 'Your ledger movements over a period of days (UTC), with the opening and closing balance of each account.',
    ny: 'Kayendedwe ka ndalama zanu pa masiku osankhidwa (UTC), ndi ndalama zoyambira ndi zotsiriza za akaunti iliyonse.',
  },
  'statements.periodLabel': { en: 'Period', ny: 'Nthawi' },
  'statements.from': { en: 'From', ny: 'Kuyambira' },
  'statements.to': { en: 'To', ny: 'Mpaka' },
  'statements.show': { en: 'Show', ny: 'Onetsani' },
  'statements.periodHint': { en: 'Days as YYYY-MM-DD, both included, at most {max} days.', ny: 'Masiku ngati YYYY-MM-DD, onse awiri akuphatikizidwa, masiku {max} okha basi.' },
  'statements.badFrom': { en: 'The first day is not a date: write it as YYYY-MM-DD.', ny: 'Tsiku loyamba si tsiku lenileni: lilembeni ngati YYYY-MM-DD.' },
  'statements.badTo': { en: 'The last day is not a date: write it as YYYY-MM-DD.', ny: 'Tsiku lomaliza si tsiku lenileni: lilembeni ngati YYYY-MM-DD.' },
  'statements.reversed': { en: 'The first day ({from}) is after the last day ({to}).', ny: 'Tsiku loyamba ({from}) lili pambuyo pa tsiku lomaliza ({to}).' },
  'statements.tooLong': { en: 'The period covers {days} days; at most {max} are allowed.', ny: 'Nthawiyi ili ndi masiku {days}; ololedwa ndi {max} okha.' },
  'statements.summary': { en: 'Balances from {from} to {to}', ny: 'Ndalama kuyambira {from} mpaka {to}' },
  'statements.summaryCaption': { en: 'Opening balance, money in and out, and closing balance of each account from {from} to {to}', ny: 'Ndalama zoyambira, zolowa ndi zotuluka, ndi zotsiriza za akaunti iliyonse kuyambira {from} mpaka {to}' },
  'statements.download': { en: 'Download CSV', ny: 'Tsitsani CSV' },
  'statements.downloadHint': {
    en: 'The CSV has every movement of the period, each with the balance of its account after it.',
    ny: 'Fayilo ya CSV ili ndi kayendedwe konse ka nthawiyi, chilichonse ndi ndalama zotsala mu akaunti yake pambuyo pake.',
  },
  'statements.col.account': { en: 'Account', ny: 'Akaunti' },
  'statements.col.opening': { en: 'Opening balance', ny: 'Ndalama zoyambira' },
  'statements.col.in': { en: 'Money in', ny: 'Zolowa' },
  'statements.col.out': { en: 'Money out', ny: 'Zotuluka' },
  'statements.col.closing': { en: 'Closing balance', ny: 'Ndalama zotsiriza' },
  'statements.col.movements': { en: 'Movements', ny: 'Kayendedwe' },
  'statements.col.date': { en: 'Date', ny: 'Tsiku' },
  'statements.col.reference': { en: 'Reference', ny: 'Nambala' },
  'statements.col.type': { en: 'Type', ny: 'Mtundu' },
  'statements.col.amount': { en: 'Amount', ny: 'Ndalama' },
  'statements.col.balance': { en: 'Balance after', ny: 'Zotsala pambuyo pake' },
  'statements.col.note': { en: 'Note', ny: 'Ndemanga' },
  'statements.account.account': { en: 'Account (both together)', ny: 'Akaunti (zonse pamodzi)' },
  'statements.account.collection': { en: 'Collection', ny: 'Zolandiridwa' },
  'statements.account.disbursement': { en: 'Disbursement', ny: 'Zotumizira' },
  'statements.movements': { en: 'Movements', ny: 'Kayendedwe ka ndalama' },
  'statements.movementsCaption': { en: 'Ledger movements from {from} to {to}, oldest first', ny: 'Kayendedwe ka ndalama kuyambira {from} mpaka {to}, zakale poyamba' },
  'statements.movementsPages': { en: 'Pages of movements', ny: 'Masamba a kayendedwe ka ndalama' },
  'statements.noMovements': { en: 'No movements in this period.', ny: 'Palibe kayendedwe ka ndalama pa nthawiyi.' },
  'statements.type.payment': { en: 'Payment received', ny: 'Malipiro olandiridwa' },
  'statements.type.payrequest': { en: 'Request to pay, paid', ny: 'Pempho lolipira, lalipidwa' },
  'statements.type.reversal': { en: 'Collection reversed', ny: 'Zolandiridwa zabwezedwa' },
  'statements.type.topup': { en: 'Top-up', ny: 'Kuonjezera ndalama' },
  'statements.type.funding': { en: 'Funding', ny: 'Ndalama zoikidwa' },
  'statements.type.payout_debit': { en: 'Payouts debited', ny: 'Ndalama zochotsedwa zolipirira' },
  'statements.type.payout_cancel': { en: 'Payouts cancelled, refunded', ny: 'Malipiro aletsedwa, ndalama zabwezedwa' },
  'statements.type.payout_settle': { en: 'Failed payout refunded', ny: 'Malipiro olephera, ndalama zabwezedwa' },
  'statements.type.payout_reversal': { en: 'Payout reversed, refunded', ny: 'Malipiro abwezedwa, ndalama zabwezedwa' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('statements', STATEMENT_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
