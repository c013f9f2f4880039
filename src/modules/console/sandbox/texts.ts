// The console's texts for sandbox tools (keys sandboxTools.*), in English and Chichewa.
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const SANDBOX_MESSAGES = {
  'sandboxTools.title': { en: 'Sandbox tools', ny: 'Zida za sandbox' },
  'sandboxTools.intro': {
    en: 'Move test money as customers and connectors would: every payment here goes through the same rules, fees, limits, ledger and webhooks as the API’s. None of this exists in production.',
    ny: 'Sunthani ndalama zoyesera monga momwe makasitomala ndi zolumikizira zingachitire: malipiro aliwonse pano amatsata malamulo, malipiro a ntchito, malire, leja ndi ma webhook omwewo a API. Palibe mwa izi chimene chilipo mu production.',
  },
  'sandboxTools.connector': { en: 'Customer pays from', ny: 'Kasitomala amalipira kuchokera ku' },
  'sandboxTools.chooseConnector': { en: 'Choose a wallet or bank', ny: 'Sankhani wallet kapena banki' },
  'sandboxTools.wallet': { en: 'wallet', ny: 'wallet' },
  'sandboxTools.bank': { en: 'bank', ny: 'banki' },

  'sandboxTools.simulateTitle': { en: 'Simulate a customer payment', ny: 'Yesezerani malipiro a kasitomala' },
  'sandboxTools.simulateIntro': {
    en: 'A customer pays your payment account {account} directly (as POST /collections/addFakeCustomPayment). Your collection balance gets the amount less the fee.',
    ny: 'Kasitomala amalipira molunjika ku akaunti yanu yolipirira {account} (monga POST /collections/addFakeCustomPayment). Ndalama zanu zolandiridwa zimawonjezeka ndi ndalamazo kuchotsa malipiro a ntchito.',
  },
  'sandboxTools.simulateSubmit': { en: 'Make the payment', ny: 'Lipirani' },

  'sandboxTools.payTitle': { en: 'Pay a timed account', ny: 'Lipirani akaunti yanthawi' },
  'sandboxTools.payIntro': {
    en: 'A customer pays one of your open requests to pay or checkout links, the amount asked (as POST /collections/requestToPay/addFakeTransaction).',
    ny: 'Kasitomala amalipira limodzi mwa mapempho anu olipira kapena maulalo olipirira otseguka, ndalama zopemphedwazo (monga POST /collections/requestToPay/addFakeTransaction).',
  },
  'sandboxTools.openRequest': { en: 'Open request to pay', ny: 'Pempho lolipira lotseguka' },
  'sandboxTools.expires': { en: 'expires {at} ({left})', ny: 'itha {at} ({left})' },
  'sandboxTools.noneOpen': { en: 'No request to pay is open.', ny: 'Palibe pempho lolipira lotseguka.' },
  'sandboxTools.createOne': { en: 'Create one in Get paid.', ny: 'Pangani limodzi mu Landirani malipiro.' },
  'sandboxTools.paySubmit': { en: 'Pay it', ny: 'Lipirani' },

  'sandboxTools.error.timedAccountRequired': { en: 'Choose the request to pay.', ny: 'Sankhani pempho lolipira.' },
  'sandboxTools.error.timedAccount': { en: 'A timed account number is 8 digits beginning with 1.', ny: 'Nambala ya akaunti yanthawi ndi manambala 8 oyamba ndi 1.' },

  'sandboxTools.suffixesTitle': { en: 'Magic account suffixes (payouts)', ny: 'Manambala apadera omaliza akaunti (zotumizidwa)' },
  'sandboxTools.suffixesIntro': {
    en: 'In the sandbox a payout to any well-formed account succeeds ({code}), except to an account ending in one of these: use them to test how your system handles each outcome.',
    ny: 'Mu sandbox malipiro otumizidwa ku akaunti iliyonse yolembedwa bwino amayenda bwino ({code}), kupatula ku akaunti yotha ndi imodzi mwa izi: zigwiritseni ntchito kuyesa momwe dongosolo lanu limachitira ndi zotsatira zilizonse.',
  },
  'sandboxTools.col.suffix': { en: 'Account ends in', ny: 'Akaunti imatha ndi' },
  'sandboxTools.col.outcome': { en: 'What happens', ny: 'Chimene chimachitika' },
  'sandboxTools.col.code': { en: 'Response code', ny: 'Nambala ya yankho' },
  'sandboxTools.col.message': { en: 'Response message (as the API sends it)', ny: 'Uthenga wa yankho (monga API imautumizira)' },
  'sandboxTools.outcome.fail': { en: 'Fails at once.', ny: 'Amalephera nthawi yomweyo.' },
  'sandboxTools.outcome.timeout': { en: 'The connector does not answer: fails after {seconds} seconds.', ny: 'Cholumikizira sichiyankha: amalephera pakadutsa masekondi {seconds}.' },
  'sandboxTools.outcome.reverse': { en: 'Succeeds, then is reversed after {seconds} seconds.', ny: 'Amayenda bwino, kenako amabwezedwa pakadutsa masekondi {seconds}.' },
  'sandboxTools.testAccounts': { en: 'Test accounts that always succeed', ny: 'Maakaunti oyesera omwe amayenda bwino nthawi zonse' },
  'sandboxTools.testWallets': { en: 'Wallets:', ny: 'Ma wallet:' },
  'sandboxTools.testBanks': { en: 'Banks:', ny: 'Mabanki:' },

  // what a payment made
  'sandboxTools.resultTitle': { en: 'Test payment made', ny: 'Malipiro oyesera apangidwa' },
  'sandboxTools.resultDirect': { en: 'A customer paid {amount} from {connector} into your payment account {account}.', ny: 'Kasitomala walipira {amount} kuchokera ku {connector} ku akaunti yanu yolipirira {account}.' },
  'sandboxTools.resultTimed': { en: 'A customer paid {amount} from {connector} into timed account {account}.', ny: 'Kasitomala walipira {amount} kuchokera ku {connector} ku akaunti yanthawi {account}.' },
  'sandboxTools.collectionReference': { en: 'Collection reference', ny: 'Chizindikiro cha zolandiridwa' },
  'sandboxTools.fee': { en: 'Fee', ny: 'Malipiro a ntchito' },
  'sandboxTools.credited': { en: 'Added to your collection balance', ny: 'Zowonjezedwa ku ndalama zanu zolandiridwa' },
  'sandboxTools.balanceAfter': { en: 'Collection balance after it', ny: 'Ndalama zolandiridwa pambuyo pake' },
  'sandboxTools.customer': { en: 'Customer (made up)', ny: 'Kasitomala (wongoyerekeza)' },
  'sandboxTools.paidRequest': { en: 'Request to pay it paid', ny: 'Pempho lolipira lomwe lalipiridwa' },
  'sandboxTools.timedAccountNumber': { en: 'timed account {account}', ny: 'akaunti yanthawi {account}' },
  'sandboxTools.when': { en: 'When (UTC)', ny: 'Liti (UTC)' },
  'sandboxTools.seeCollection': { en: 'See the collection', ny: 'Onani zolandiridwa' },
  'sandboxTools.back': { en: 'Back to sandbox tools', ny: 'Bwererani ku zida za sandbox' },

  'notice.sandboxTools.paid': { en: 'The test payment went through.', ny: 'Malipiro oyesera ayenda bwino.' },
  'notice.sandboxTools.paidTimed': { en: 'The timed account is paid.', ny: 'Akaunti yanthawi yalipiridwa.' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('sandbox', SANDBOX_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
