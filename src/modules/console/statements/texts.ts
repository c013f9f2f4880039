// The statements area's texts, in English and Chichewa (kit/i18n.ts joins them to the console's own).
import { areaTexts, type Entry } from '../kit/i18n.ts';
import type { Lang } from '../../../http/i18n.ts';
import { STATEMENT_LINE_TYPES, type StatementLineType } from '../../ledger/statement-lines.ts';

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
  'statements.periodHint': { en: 'UTC days, both included, at most {max} days.', ny: 'Masiku a UTC, onse awiri akuphatikizidwa, masiku {max} okha basi.' },
  'statements.badFrom': { en: 'The first day is not a date: write it as YYYY-MM-DD.', ny: 'Tsiku loyamba si tsiku lenileni: lilembeni ngati YYYY-MM-DD.' },
  'statements.badTo': { en: 'The last day is not a date: write it as YYYY-MM-DD.', ny: 'Tsiku lomaliza si tsiku lenileni: lilembeni ngati YYYY-MM-DD.' },
  'statements.reversed': { en: 'The first day ({from}) is after the last day ({to}).', ny: 'Tsiku loyamba ({from}) lili pambuyo pa tsiku lomaliza ({to}).' },
  'statements.tooLong': { en: 'The period covers {days} days; at most {max} are allowed.', ny: 'Nthawiyi ili ndi masiku {days}; ololedwa ndi {max} okha.' },
  'statements.summaryCaption': { en: 'Opening balance, money in and out, and closing balance of each account from {from} to {to}', ny: 'Ndalama zoyambira, zolowa ndi zotuluka, ndi zotsiriza za akaunti iliyonse kuyambira {from} mpaka {to}' },
  'statements.download': { en: 'Download CSV', ny: 'Tsitsani CSV' },
  'statements.downloadExcel': { en: 'Download Excel', ny: 'Tsitsani Excel' },
  'statements.downloadHint': {
    en: 'The CSV has the opening balance, every line of the period with the balance after it, and the closing balance.',
    ny: 'Fayilo ya CSV ili ndi ndalama zoyambira, mzere uliwonse wa nthawiyi ndi ndalama zotsala pambuyo pake, ndi ndalama zotsiriza.',
  },
  'statements.col.account': { en: 'Account', ny: 'Akaunti' },
  'statements.col.opening': { en: 'Opening balance', ny: 'Ndalama zoyambira' },
  'statements.col.in': { en: 'Money in', ny: 'Zolowa' },
  'statements.col.out': { en: 'Money out', ny: 'Zotuluka' },
  'statements.col.closing': { en: 'Closing balance', ny: 'Ndalama zotsiriza' },
  'statements.col.date': { en: 'Date', ny: 'Tsiku' },
  'statements.col.reference': { en: 'Reference', ny: 'Nambala' },
  'statements.col.type': { en: 'Type', ny: 'Mtundu' },
  'statements.col.amount': { en: 'Amount', ny: 'Ndalama' },
  'statements.col.balance': { en: 'Balance after', ny: 'Zotsala pambuyo pake' },
  'statements.account.account': { en: 'Account (both together)', ny: 'Akaunti (zonse pamodzi)' },
  'statements.account.collection': { en: 'Collection', ny: 'Zolandiridwa' },
  'statements.account.disbursement': { en: 'Disbursement', ny: 'Zotumizira' },
  'statements.movements': { en: 'Movements', ny: 'Kayendedwe ka ndalama' },
  'statements.movementsCaption': { en: 'Ledger movements from {from} to {to}, oldest first', ny: 'Kayendedwe ka ndalama kuyambira {from} mpaka {to}, zakale poyamba' },
  'statements.movementsPages': { en: 'Pages of movements', ny: 'Masamba a kayendedwe ka ndalama' },
  'statements.noMovements': { en: 'No movements in this period.', ny: 'Palibe kayendedwe ka ndalama pa nthawiyi.' },
  // The statement's line types (ledger/statement-lines.ts STATEMENT_LINE_TYPES), on the page and in the download.
  'statements.line.opening_balance': { en: 'Opening balance', ny: 'Ndalama zoyambira' },
  'statements.line.closing_balance': { en: 'Closing balance', ny: 'Ndalama zotsiriza' },
  'statements.line.collection': { en: 'Collection', ny: 'Ndalama zolandiridwa' },
  'statements.line.collection_fee': { en: 'Collection fee', ny: 'Chindapusa cha zolandiridwa' },
  'statements.line.collection_reversal': { en: 'Reversal', ny: 'Zolandiridwa zabwezedwa' },
  'statements.line.collection_fee_refund': { en: 'Collection fee refunded', ny: 'Chindapusa cha zolandiridwa chabwezedwa' },
  'statements.line.payout': { en: 'Payout', ny: 'Malipiro otumizidwa' },
  'statements.line.payout_fee': { en: 'Payout fee', ny: 'Chindapusa cha malipiro' },
  'statements.line.payout_cancelled': { en: 'Payout cancelled, refunded', ny: 'Malipiro aletsedwa, ndalama zabwezedwa' },
  'statements.line.payout_refund': { en: 'Failed payout refunded', ny: 'Malipiro olephera, ndalama zabwezedwa' },
  'statements.line.payout_fee_refund': { en: 'Payout fee refunded', ny: 'Chindapusa cha malipiro chabwezedwa' },
  'statements.line.payout_reversal': { en: 'Payout reversed, refunded', ny: 'Malipiro abwezedwa, ndalama zabwezedwa' },
  'statements.line.topup': { en: 'Top-up', ny: 'Kuonjezera ndalama' },
  'statements.line.funding': { en: 'Funding from the bank', ny: 'Ndalama zoikidwa kuchokera ku banki' },
  'statements.line.correction': { en: 'Correction', ny: 'Kukonza' },
  'statements.totals': { en: 'Statement from {from} to {to}', ny: 'Sitetimenti kuyambira {from} mpaka {to}' },
  'statements.totalsHint': {
    en: 'Both accounts together. Fees are lines of their own: closing balance = opening balance + money in − money out − fees.',
    ny: 'Akaunti zonse ziwiri pamodzi. Zindapusa zili pa mizere yawoyawo: ndalama zotsiriza = zoyambira + zolowa − zotuluka − zindapusa.',
  },
  'statements.col.fees': { en: 'Fees', ny: 'Zindapusa' },
  // Per account, as the ledger books it: a collection credited net of its fee, a batch debited with its fees.
  'statements.col.credits': { en: 'Credits', ny: 'Zolowa mu akaunti' },
  'statements.col.debits': { en: 'Debits', ny: 'Zotuluka mu akaunti' },
  'statements.col.entries': { en: 'Ledger entries', ny: 'Zolembedwa mu leja' },
  'statements.col.counterparty': { en: 'Counterparty', ny: 'Wolandira kapena wolipira' },
  'statements.accountsTitle': { en: 'Each account', ny: 'Akaunti iliyonse' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('statements', STATEMENT_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];

/** Every line type's name in `lang`, for the page and the download. */
export function statementTypeNames(lang: Lang): Record<StatementLineType, string> {
  return Object.fromEntries(STATEMENT_LINE_TYPES.map((code) => [code, ct(lang, `statements.line.${code}`)])) as Record<StatementLineType, string>;
}
