// The console's texts for settlement accounts (keys settlement.*), in English and Chichewa.
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const SETTLEMENT_MESSAGES = {
  'settlement.title': { en: 'Settlement accounts', ny: 'Maakaunti olandirira' },
  'settlement.intro': {
    en: 'The bank accounts your money is settled to. One account is active at a time: deactivate the active one before activating another. Only the active account can be changed, and only an inactive one deleted.',
    ny: 'Maakaunti a ku banki omwe ndalama zanu zimatumizidwako. Akaunti imodzi yokha imagwira ntchito panthawi imodzi: imitsani yomwe ikugwira ntchito musanayambitse ina. Akaunti yokhayo yomwe ikugwira ntchito ndi imene ingasinthidwe, ndipo yosagwira ntchito yokha ndi imene ingachotsedwe.',
  },
  'settlement.caption': { en: 'Settlement accounts of this merchant', ny: 'Maakaunti olandirira a wamalonda uyu' },
  'settlement.none': { en: 'No settlement accounts yet. Add one below.', ny: 'Palibe maakaunti olandirira pakadali pano. Onjezani imodzi pansipa.' },
  'settlement.col.account': { en: 'Account', ny: 'Akaunti' },
  'settlement.col.bank': { en: 'Bank', ny: 'Banki' },
  'settlement.col.status': { en: 'Status', ny: 'Momwe ilili' },
  'settlement.col.added': { en: 'Added', ny: 'Inaonjezedwa' },
  'settlement.col.changed': { en: 'Last changed', ny: 'Kusintha komaliza' },
  'settlement.col.actions': { en: 'Actions', ny: 'Zochita' },
  'settlement.status.A': { en: 'Active', ny: 'Ikugwira ntchito' },
  'settlement.status.I': { en: 'Inactive', ny: 'Siikugwira ntchito' },
  'settlement.by': { en: 'by {who}', ny: 'ndi {who}' },
  'settlement.never': { en: 'Not changed', ny: 'Sinasinthidwe' },
  'settlement.actionsFor': { en: 'Actions for account {number}', ny: 'Zochita pa akaunti {number}' },
  'settlement.activate': { en: 'Activate', ny: 'Yambitsani' },
  'settlement.deactivate': { en: 'Deactivate', ny: 'Imitsani' },
  'settlement.delete': { en: 'Delete', ny: 'Chotsani' },
  'settlement.edit': { en: 'Change', ny: 'Sinthani' },
  'settlement.accountHidden': { en: 'account {number}', ny: 'akaunti {number}' },

  // the forms
  'settlement.addTitle': { en: 'Add a settlement account', ny: 'Onjezani akaunti yolandirira' },
  'settlement.addIntro': { en: 'A new account is inactive until you activate it.', ny: 'Akaunti yatsopano siigwira ntchito mpaka mutayiyambitsa.' },
  'settlement.bank': { en: 'Bank', ny: 'Banki' },
  'settlement.bankChoose': { en: 'Choose a bank', ny: 'Sankhani banki' },
  'settlement.accountNumber': { en: 'Account number', ny: 'Nambala ya akaunti' },
  'settlement.accountNumberHint': { en: '10 to 16 digits, as on your bank statement.', ny: 'Manambala 10 mpaka 16, monga momwe alili pa sitetimenti ya banki yanu.' },
  'settlement.accountName': { en: 'Account name', ny: 'Dzina la akaunti' },
  'settlement.accountNameHint': { en: 'The account holder, as the bank names them (at most {max} characters).', ny: 'Mwini akaunti, monga momwe banki imamutchulira (zilembo {max} zokha basi).' },
  'settlement.add': { en: 'Add the account', ny: 'Onjezani akaunti' },
  'settlement.editTitle': { en: 'Change settlement account {number}', ny: 'Sinthani akaunti yolandirira {number}' },
  'settlement.editIntro': { en: 'The active account\'s bank, number and name. The account stays active.', ny: 'Banki, nambala ndi dzina la akaunti yomwe ikugwira ntchito. Akauntiyo ipitiriza kugwira ntchito.' },
  'settlement.save': { en: 'Save the changes', ny: 'Sungani zosinthazo' },
  'settlement.cancel': { en: 'Cancel', ny: 'Siyani' },
  'settlement.problems': { en: 'Nothing was changed. Please check:', ny: 'Palibe chomwe chasinthidwa. Chonde onani:' },
  'settlement.breadcrumbs': { en: 'You are here', ny: 'Muli pano' },

  // refusals of the forms' fields
  'settlement.error.bankMissing': { en: 'Choose a bank.', ny: 'Sankhani banki.' },
  'settlement.error.bankUnknown': { en: 'Choose one of the banks listed.', ny: 'Sankhani imodzi mwa mabanki omwe ali pamndandanda.' },
  'settlement.error.numberMissing': { en: 'Enter the account number.', ny: 'Lembani nambala ya akaunti.' },
  'settlement.error.numberInvalid': { en: 'An account number is 10 to 16 digits, nothing else.', ny: 'Nambala ya akaunti ndi manambala 10 mpaka 16 okha basi.' },
  'settlement.error.nameMissing': { en: 'Enter the account name.', ny: 'Lembani dzina la akaunti.' },
  'settlement.error.nameTooLong': { en: 'An account name has at most {max} characters.', ny: 'Dzina la akaunti lili ndi zilembo {max} zokha basi.' },

  // notices after an action
  'notice.settlement.added': { en: 'The settlement account was added. It is inactive until you activate it.', ny: 'Akaunti yolandirira yaonjezedwa. Siigwira ntchito mpaka mutayiyambitsa.' },
  'notice.settlement.activated': { en: 'The settlement account is active: settlements are paid into it.', ny: 'Akaunti yolandirira ikugwira ntchito: ndalama zimatumizidwa mmenemo.' },
  'notice.settlement.deactivated': { en: 'The settlement account is inactive.', ny: 'Akaunti yolandirira yaimitsidwa.' },
  'notice.settlement.updated': { en: 'The settlement account was changed.', ny: 'Akaunti yolandirira yasinthidwa.' },
  'notice.settlement.deleted': { en: 'The settlement account was deleted.', ny: 'Akaunti yolandirira yachotsedwa.' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('settlement', SETTLEMENT_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
