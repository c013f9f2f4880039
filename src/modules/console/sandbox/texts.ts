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

  // the outbox (pages/outbox.tsx)
  'sandboxTools.emailsTitle': { en: 'E-mails the console wrote', ny: 'Maimelo amene tsambali lalemba' },
  'sandboxTools.emailsIntro': {
    en: 'Invitations, password reset links and other e-mails for your users, when no mail server is configured to send them.',
    ny: 'Kuitana, maulalo osinthira mawu achinsinsi ndi maimelo ena a ogwiritsa ntchito anu, pamene palibe seva ya imelo yokonzedwa kuti iwatumize.',
  },
  'sandboxTools.emailsLink': { en: 'Open the outbox', ny: 'Tsegulani bokosi la maimelo' },
  'sandboxTools.outbox.title': { en: 'Outbox', ny: 'Bokosi la maimelo' },
  'sandboxTools.outbox.intro': {
    en: 'No mail server is configured (SMTP_URL), so the e-mails written for your users — invitations, password reset links, notices — are kept here instead of being sent. Open one to pass its link on. Your merchant account’s only, newest first, the latest {limit}.',
    ny: 'Palibe seva ya imelo yokonzedwa (SMTP_URL), choncho maimelo olembedwera ogwiritsa ntchito anu — kuitana, maulalo osinthira mawu achinsinsi, zidziwitso — amasungidwa pano m\'malo motumizidwa. Tsegulani imodzi kuti mupereke ulalo wake. Za akaunti yanu ya wamalonda yokha, zatsopano poyamba, {limit} zomaliza.',
  },
  'sandboxTools.outbox.introSmtp': {
    en: 'A mail server is configured: new e-mails are sent. These were held before it was. Your merchant account’s only, newest first, the latest {limit}.',
    ny: 'Seva ya imelo yakonzedwa: maimelo atsopano amatumizidwa. Awa anasungidwa isanakonzedwe. Za akaunti yanu ya wamalonda yokha, zatsopano poyamba, {limit} zomaliza.',
  },
  'sandboxTools.outbox.empty': { en: 'No e-mail is held.', ny: 'Palibe imelo yosungidwa.' },
  'sandboxTools.outbox.col.subject': { en: 'Subject', ny: 'Mutu' },
  'sandboxTools.outbox.col.to': { en: 'To', ny: 'Kwa' },
  'sandboxTools.outbox.col.when': { en: 'Written (UTC)', ny: 'Inalembedwa (UTC)' },
  'sandboxTools.outbox.emailTitle': { en: 'Held e-mail', ny: 'Imelo yosungidwa' },
  'sandboxTools.outbox.emailIntro': {
    en: 'Not sent: no mail server is configured. Its links work as they would from the recipient’s mailbox; pass them on to the person they are for.',
    ny: 'Sinatumizidwe: palibe seva ya imelo yokonzedwa. Maulalo ake amagwira ntchito monga momwe angachitire kuchokera mu imelo ya wolandira; apatseni munthu amene ali wake.',
  },
  'sandboxTools.outbox.back': { en: 'Back to the outbox', ny: 'Bwererani ku bokosi la maimelo' },

  'notice.sandboxTools.paid': { en: 'The test payment went through.', ny: 'Malipiro oyesera ayenda bwino.' },
  'notice.sandboxTools.paidTimed': { en: 'The timed account is paid.', ny: 'Akaunti yanthawi yalipiridwa.' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('sandbox', SANDBOX_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
