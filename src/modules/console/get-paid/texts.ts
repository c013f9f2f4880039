// The console's texts for requests to pay and checkout links (keys getPaid.*), in English and Chichewa.
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const GETTING_PAID_MESSAGES = {
  'getPaid.title': { en: 'Get paid', ny: 'Landirani malipiro' },
  'getPaid.intro': {
    en: 'Ask a customer to pay: a request to pay gives them a timed account number to pay into; a checkout link opens a page where they pay.',
    ny: 'Pemphani kasitomala kuti alipire: pempho lolipira limampatsa nambala ya akaunti yanthawi yoti alipiremo; ulalo wolipirira umatsegula tsamba pomwe amalipira.',
  },

  // the forms
  'getPaid.requestTitle': { en: 'Request to pay', ny: 'Pempho lolipira' },
  'getPaid.requestIntro': {
    en: 'The customer gets a timed account number and pays the exact amount into it within {minutes} minutes.',
    ny: 'Kasitomala amalandira nambala ya akaunti yanthawi ndipo amalipiramo ndalama zenizenizo pasanathe mphindi {minutes}.',
  },
  'getPaid.requestSubmit': { en: 'Create the request to pay', ny: 'Pangani pempho lolipira' },
  'getPaid.checkoutTitle': { en: 'Checkout link', ny: 'Ulalo wolipirira' },
  'getPaid.checkoutIntro': {
    en: 'A link to a payment page to share with the customer (by message or e-mail). It can be paid for {minutes} minutes; then the customer goes to your page for success or failure.',
    ny: 'Ulalo wa tsamba lolipirira woti mugawane ndi kasitomala (pa uthenga kapena imelo). Ukhoza kulipiridwa kwa mphindi {minutes}; kenako kasitomala amapita ku tsamba lanu la kupambana kapena kulephera.',
  },
  'getPaid.checkoutSubmit': { en: 'Create the checkout link', ny: 'Pangani ulalo wolipirira' },
  'getPaid.description': { en: 'Description', ny: 'Kufotokozera' },
  'getPaid.descriptionHint': { en: 'What the customer pays for.', ny: 'Chimene kasitomala akulipirira.' },
  'getPaid.checkoutDescriptionHint': { en: 'What the customer pays for: shown on the payment page.', ny: 'Chimene kasitomala akulipirira: chimaonetsedwa patsamba lolipirira.' },
  'getPaid.reference': { en: 'Your reference', ny: 'Chizindikiro chanu' },
  'getPaid.referenceHint': {
    en: 'Letters and digits only, up to {max}; the payment carries it, so you can match it. One open request per reference.',
    ny: 'Zilembo ndi manambala okha, mpaka {max}; malipiro amakhala nacho, kuti muthe kuwafananitsa. Pempho limodzi lotseguka pa chizindikiro chilichonse.',
  },
  'getPaid.sourceReference': { en: 'Order reference', ny: 'Chizindikiro cha oda' },
  'getPaid.sourceReferenceHint': {
    en: 'Your own reference for this payment, up to {max} characters: letters, digits and _ . : / # -. It is added to the addresses below.',
    ny: 'Chizindikiro chanu cha malipiro awa, mpaka zilembo {max}: zilembo, manambala ndi _ . : / # -. Chimawonjezeredwa ku maadiresi ali m\'munsiwa.',
  },
  'getPaid.successUrl': { en: 'Page after paying', ny: 'Tsamba atalipira' },
  'getPaid.successUrlHint': { en: 'A web address of yours (https://…) the customer goes to once they have paid.', ny: 'Adiresi yanu ya pa intaneti (https://…) yomwe kasitomala amapitako akamaliza kulipira.' },
  'getPaid.failureUrl': { en: 'Page if not paid', ny: 'Tsamba ngati sanalipire' },
  'getPaid.failureUrlHint': { en: 'Where the customer goes if they cancel or the time runs out.', ny: 'Komwe kasitomala amapita ngati waletsa kapena nthawi yatha.' },

  // the fields' messages
  'getPaid.error.reference': { en: 'Use {min} to {max} letters and digits, without spaces or symbols.', ny: 'Gwiritsani ntchito zilembo ndi manambala {min} mpaka {max}, popanda mipata kapena zizindikiro zina.' },
  'getPaid.error.sourceReference': {
    en: 'Use up to {max} letters, digits and _ . : / # -, starting with a letter or digit.',
    ny: 'Gwiritsani ntchito zilembo, manambala ndi _ . : / # - mpaka {max}, kuyambira ndi chilembo kapena nambala.',
  },
  'getPaid.error.url': { en: 'Enter a web address starting with https:// (or http://), at most {max} characters, without a user name or password.', ny: 'Lembani adiresi ya pa intaneti yoyamba ndi https:// (kapena http://), zilembo {max} zokha basi, popanda dzina kapena mawu achinsinsi.' },

  // the open ones
  'getPaid.openTitle': { en: 'Open requests and links', ny: 'Mapempho ndi maulalo otseguka' },
  'getPaid.openIntro': { en: 'Not paid yet and not expired, newest first.', ny: 'Asanalipiridwe ndipo nthawi yake isanathe, atsopano poyamba.' },
  'getPaid.openNone': { en: 'Nothing is open: no request to pay or checkout link is waiting to be paid.', ny: 'Palibe chotseguka: palibe pempho lolipira kapena ulalo wolipirira womwe ukuyembekezera kulipiridwa.' },
  'getPaid.openNoMore': { en: 'No more open requests.', ny: 'Palibenso mapempho otseguka.' },
  'getPaid.openCaption': { en: 'Open requests to pay and checkout links', ny: 'Mapempho olipira ndi maulalo olipirira otseguka' },
  'getPaid.openPages': { en: 'Pages of open requests', ny: 'Masamba a mapempho otseguka' },
  'getPaid.col.reference': { en: 'Reference', ny: 'Chizindikiro' },
  'getPaid.col.kind': { en: 'Kind', ny: 'Mtundu' },
  'getPaid.col.timedAccount': { en: 'Timed account', ny: 'Akaunti yanthawi' },
  'getPaid.col.amount': { en: 'Amount', ny: 'Ndalama' },
  'getPaid.col.expires': { en: 'Expires (UTC)', ny: 'Nthawi yotha (UTC)' },
  'getPaid.col.status': { en: 'Status', ny: 'Momwe zilili' },
  'getPaid.kind.request': { en: 'Request to pay', ny: 'Pempho lolipira' },
  'getPaid.kind.checkout': { en: 'Checkout link', ny: 'Ulalo wolipirira' },
  'getPaid.status.open': { en: 'Open', ny: 'Lotseguka' },
  'getPaid.status.paid': { en: 'Paid', ny: 'Lalipiridwa' },
  'getPaid.status.expired': { en: 'Expired', ny: 'Nthawi yatha' },

  // one request
  'getPaid.requestHeading': { en: 'Request to pay {reference}', ny: 'Pempho lolipira {reference}' },
  'getPaid.checkoutHeading': { en: 'Checkout link {reference}', ny: 'Ulalo wolipirira {reference}' },
  'getPaid.giveTitle': { en: 'Give the customer these', ny: 'Patsani kasitomala izi' },
  'getPaid.shareTitle': { en: 'Share this link with the customer', ny: 'Gawanani ulalowu ndi kasitomala' },
  'getPaid.linkLabel': { en: 'Checkout link', ny: 'Ulalo wolipirira' },
  'getPaid.linkHint': { en: 'Anyone with the link can open the payment page: send it to this customer only.', ny: 'Aliyense amene ali ndi ulalowu akhoza kutsegula tsamba lolipirira: mutumizireni kasitomalayu yekha.' },
  'getPaid.copy': { en: 'Copy link', ny: 'Koperani ulalo' },
  'getPaid.copied': { en: 'Link copied.', ny: 'Ulalo wakopedwa.' },
  'getPaid.copyFailed': { en: 'Could not copy: select the link and copy it yourself.', ny: 'Sizinatheke kukopera: sankhani ulalo ndipo mukopere nokha.' },
  'getPaid.timedAccount': { en: 'Timed account number', ny: 'Nambala ya akaunti yanthawi' },
  'getPaid.amountToPay': { en: 'Amount to pay', ny: 'Ndalama zolipira' },
  'getPaid.exactAmount': { en: 'The customer pays exactly this amount into this account number from their wallet or bank.', ny: 'Kasitomala amalipira ndalama zenizenizi ku nambala ya akaunti iyi kuchokera ku wallet kapena banki yake.' },
  'getPaid.checkoutExact': { en: 'The payment page shows the customer this amount and this timed account.', ny: 'Tsamba lolipirira limaonetsa kasitomala ndalama izi ndi akaunti yanthawi iyi.' },
  'getPaid.payBefore': { en: 'Pay before', ny: 'Lipirani isanafike' },
  'getPaid.timeLeft': { en: 'Time left:', ny: 'Nthawi yotsala:' },
  'getPaid.say5': { en: '5 minutes left to pay.', ny: 'Zatsala mphindi 5 kuti mulipire.' },
  'getPaid.say1': { en: '1 minute left to pay.', ny: 'Yatsala mphindi imodzi kuti mulipire.' },
  'getPaid.sayExpired': { en: 'The time to pay has run out: this timed account no longer takes payment.', ny: 'Nthawi yolipira yatha: akaunti yanthawi iyi sikulandiranso malipiro.' },
  'getPaid.payInSandbox': { en: 'Pay it as a test customer (sandbox tools)', ny: 'Lipirani ngati kasitomala woyesera (zida za sandbox)' },
  'getPaid.paidText': { en: 'Paid at {at}.', ny: 'Lalipiridwa pa {at}.' },
  'getPaid.seeCollection': { en: 'See the collection {reference}', ny: 'Onani zolandiridwa {reference}' },
  'getPaid.expiredText': { en: 'Not paid: the time to pay ran out at {at}.', ny: 'Silinalipiridwe: nthawi yolipira inatha pa {at}.' },
  'getPaid.details': { en: 'Details', ny: 'Zambiri' },
  'getPaid.apiReference': { en: 'Reference in the API', ny: 'Chizindikiro mu API' },
  'getPaid.created': { en: 'Created (UTC)', ny: 'Linapangidwa (UTC)' },
  'getPaid.createdBy': { en: 'by {who}', ny: 'ndi {who}' },
  'getPaid.back': { en: 'Back to Get paid', ny: 'Bwererani ku Landirani malipiro' },

  // notices after an action
  'notice.getPaid.requestCreated': { en: 'The request to pay is created: give the customer the timed account number and the amount.', ny: 'Pempho lolipira lapangidwa: patsani kasitomala nambala ya akaunti yanthawi ndi ndalama.' },
  'notice.getPaid.checkoutCreated': { en: 'The checkout link is created: share it with the customer.', ny: 'Ulalo wolipirira wapangidwa: gawanani nawo kasitomala.' },
} satisfies Record<string, Entry>;

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('get-paid', GETTING_PAID_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
