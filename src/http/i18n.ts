// Every text the API returns, in English and Chichewa. Field names and codes are never translated.
// Adding a message means adding it in both languages; the type below makes a missing one a
// compile error.

export const LANGUAGES = ['en', 'ny'] as const;
export type Lang = (typeof LANGUAGES)[number];

type Params = Record<string, string | number>;
type Entry = Record<Lang, string>;

const MESSAGES = {
  // problem titles (one per error kind)
  'title.validation': { en: 'Validation failed', ny: 'Zomwe mwatumiza sizili bwino' },
  'title.unauthorized': { en: 'Unauthorized', ny: 'Simunalowe moyenera' },
  'title.forbidden': { en: 'Forbidden', ny: 'Simukuloledwa' },
  'title.notFound': { en: 'Not found', ny: 'Sizinapezeke' },
  'title.conflict': { en: 'Conflict', ny: 'Pali kusemphana' },
  'title.idempotency': { en: 'Idempotency key conflict', ny: 'Kusemphana kwa kiyi ya idempotency' },
  'title.tooLarge': { en: 'Payload too large', ny: 'Zomwe mwatumiza ndi zazikulu kwambiri' },
  'title.unsupportedMediaType': { en: 'Unsupported media type', ny: 'Mtundu wa zomwe mwatumiza sukuvomerezedwa' },
  'title.rateLimited': { en: 'Too many requests', ny: 'Zopempha zachuluka kwambiri' },
  'title.businessRule': { en: 'Request refused', ny: 'Pempho lakanidwa' },
  'title.connector': { en: 'Connector failed', ny: 'Cholumikizira chalephera' },
  'title.internal': { en: 'Internal error', ny: 'Vuto la mkati' },
  'title.unavailable': { en: 'Service unavailable', ny: 'Ntchitoyi sikupezeka pakali pano' },

  // problem details
  'detail.validation': { en: 'The request is not valid; see errors for each field.', ny: 'Pempholi silili bwino; onani zolakwika pa gawo lililonse.' },
  'detail.badJson': { en: 'The request body is not valid JSON.', ny: 'Thupi la pempholi si JSON yoyenera.' },
  'detail.emptyJson': { en: 'The request body is empty but JSON was declared.', ny: 'Thupi la pempholi lilibe kanthu koma JSON inalengezedwa.' },
  'detail.tooDeep': { en: 'The request nests objects or lists more than {limit} levels deep.', ny: 'Pempholi lili ndi zinthu zolowetsana mozama kuposa magawo {limit}.' },
  'detail.tooLarge': { en: 'The request body is larger than {limit} bytes.', ny: 'Thupi la pempholi ndi lalikulu kuposa ma byte {limit}.' },
  'detail.unsupportedMediaType': { en: 'Content-Type {type} is not supported; send application/json.', ny: 'Content-Type {type} sikuvomerezedwa; tumizani application/json.' },
  'detail.missingToken': { en: 'Send an access token: Authorization: Bearer <token>.', ny: 'Tumizani chiphaso: Authorization: Bearer <token>.' },
  'detail.invalidToken': { en: 'The access token is invalid or has expired; request a new one.', ny: 'Chiphaso sichili bwino kapena nthawi yake yatha; pemphani china.' },
  'detail.revokedKey': { en: 'The API key behind this token is no longer active.', ny: 'Kiyi ya API ya chiphasochi siikugwiranso ntchito.' },
  'detail.badCredentials': { en: 'The API key, secret, organisation or merchant account is wrong, inactive or expired.', ny: 'Kiyi, chinsinsi, bungwe kapena akaunti ya wamalonda sizolondola, sizikugwira ntchito kapena nthawi yake yatha.' },
  'detail.adminToken': { en: 'A valid operator token is required.', ny: 'Chiphaso choyenera cha woyang\'anira chikufunika.' },
  'detail.routeNotFound': { en: 'No operation exists at {method} {path}.', ny: 'Palibe ntchito pa {method} {path}.' },
  'detail.operatorOnly': {
    en: '{method} {path} is an operator operation: a merchant\'s access token cannot make it. The operator makes it with POST /admin/v1/merchants/accounts/{action} (operator token).',
    ny: '{method} {path} ndi ntchito ya woyang\'anira: chiphaso cha wamalonda sichingaichite. Woyang\'anira amaichita ndi POST /admin/v1/merchants/accounts/{action} (chiphaso cha woyang\'anira).',
  },
  'detail.merchantNotFound': { en: 'Merchant account {merchantAccountNumber} was not found.', ny: 'Akaunti ya wamalonda {merchantAccountNumber} sinapezeke.' },
  'detail.organisationNotFound': { en: 'Organisation {organisationId} was not found.', ny: 'Bungwe {organisationId} silinapezeke.' },
  'detail.apiKeyNotFound': { en: 'API key {clientKey} was not found.', ny: 'Kiyi ya API {clientKey} sinapezeke.' },
  'detail.connectorNotFound': { en: 'Connector {connectorId} was not found.', ny: 'Cholumikizira {connectorId} sichinapezeke.' },
  'detail.fundingReferenceUsed': {
    en: 'Bank reference {bankReference} was already recorded (funding {fundingId} of merchant {merchantAccountNumber}: {amount} received on {receivedOn}); one receipt credits one merchant once.',
    ny: 'Nambala ya banki {bankReference} inalembedwa kale (ndalama {fundingId} za wamalonda {merchantAccountNumber}: {amount} zolandiridwa pa {receivedOn}); risiti imodzi imapereka ndalama kamodzi kokha.',
  },
  'detail.receivedOnFuture': { en: 'receivedOn {date} is in the future; money can only be recorded once the bank has received it.', ny: 'receivedOn {date} ndi tsiku lakutsogolo; ndalama zimalembedwa banki itazilandira.' },
  'detail.apiKeyExists': { en: 'API key {clientKey} already exists.', ny: 'Kiyi ya API {clientKey} ilipo kale.' },
  'detail.idempotencyMismatch': { en: 'Idempotency key {key} was already used with a different request.', ny: 'Kiyi ya idempotency {key} inagwiritsidwa kale ntchito pa pempho lina.' },
  'detail.idempotencyInProgress': { en: 'A request with idempotency key {key} is still being processed; retry shortly.', ny: 'Pempho la kiyi ya idempotency {key} likukonzedwabe; yesaninso posachedwa.' },
  'detail.rateLimited': { en: 'More than {limit} requests per second for this merchant account; retry after {retryAfter} s.', ny: 'Zopempha zoposa {limit} pa sekondi imodzi pa akaunti iyi; yesaninso pakadutsa masekondi {retryAfter}.' },
  'detail.internal': { en: 'Something went wrong on our side. Quote request id {requestId} when you contact support.', ny: 'Pali vuto kumbali yathu. Tchulani nambala ya pempho {requestId} polankhula nafe.' },
  'detail.unavailable': { en: 'The service cannot take requests right now; retry shortly.', ny: 'Ntchitoyi siingalandire zopempha pakali pano; yesaninso posachedwa.' },
  'detail.shuttingDown': { en: 'The server is shutting down; retry on another instance.', ny: 'Seva ikutseka; yesaninso pa seva ina.' },
  'detail.connectorInactive': { en: 'Connector {connectorId} is not active.', ny: 'Cholumikizira {connectorId} sichikugwira ntchito.' },
  'detail.merchantInactive': { en: 'Merchant account {merchantAccountNumber} is not active.', ny: 'Akaunti ya wamalonda {merchantAccountNumber} siikugwira ntchito.' },
  'detail.amountOutOfRange': { en: 'Amount {amount} is outside the allowed range {min} to {max}.', ny: 'Ndalama {amount} ili kunja kwa malire ovomerezeka {min} mpaka {max}.' },
  'detail.insufficientBalance': { en: 'The account balance is too low for this transaction.', ny: 'Ndalama za mu akaunti sizikwanira kuchita izi.' },
  'detail.balanceTooLarge': { en: 'The balance would exceed the largest amount an account may hold.', ny: 'Ndalama za mu akaunti zingapitirire kuchuluka kovomerezeka.' },
  'detail.expiryInPast': { en: 'Expiry date {expiryDate} is in the past.', ny: 'Tsiku lotha ntchito {expiryDate} ladutsa kale.' },
  'detail.demoRefused': { en: 'The demo merchant does not exist in production mode.', ny: 'Wamalonda woyesera sapezeka pa ntchito yeniyeni.' },

  'detail.webhookNotFound': { en: 'Webhook {webhook} was not found.', ny: 'Webhook {webhook} sinapezeke.' },
  'detail.webhookExists': { en: 'A webhook for event {eventCode} already exists; update it instead.', ny: 'Webhook ya chochitika {eventCode} ilipo kale; isintheni m\'malo mwake.' },
  'detail.callbackUrl': { en: 'Callback URL must be an absolute http(s) URL without credentials.', ny: 'Callback URL ikhale adilesi yathunthu ya http(s) yopanda mawu achinsinsi.' },
  'detail.callbackPrivate': { en: 'Callback URL {host} points to a private, loopback or link-local address, which production mode refuses.', ny: 'Callback URL {host} ikulozera ku adilesi yachinsinsi, loopback kapena link-local, zomwe sizivomerezedwa pa ntchito yeniyeni.' },
  'detail.deliveryNotFound': { en: 'Delivery {deliveryId} was not found.', ny: 'Kutumiza {deliveryId} sikunapezeke.' },
  'detail.unknownEventForTest': { en: 'Event code {eventCode} is not one the service sends; test events exist only for known codes.', ny: 'Khodi {eventCode} si imodzi mwa zimene ntchitoyi imatumiza; zoyesera zilipo pa makhodi odziwika okha.' },
  'detail.listenerNotFound': { en: 'Listener {listenerId} was not found, or its lease has lapsed; create a new one.', ny: 'Listener {listenerId} sinapezeke, kapena nthawi yake yatha; pangani ina.' },
  'detail.listenersMax': { en: 'This merchant already has {max} active listeners; delete one or let its lease lapse.', ny: 'Wamalonda uyu ali kale ndi ma listener {max} ogwira ntchito; chotsani limodzi kapena dikirani kuti nthawi yake ithe.' },
  'detail.redeliverTarget': { en: 'Name one delivery (deliveryId) or a time range (fromDate and toDate), not both.', ny: 'Tchulani kutumiza kumodzi (deliveryId) kapena nthawi (fromDate ndi toDate), osati zonse ziwiri.' },

  'detail.dailyLimit': { en: 'This {transactionCode} transaction would take today\'s total to {total}, above the daily limit of {limit}.', ny: 'Ndalama iyi ya {transactionCode} ingapangitse zonse za lero kukhala {total}, kupitirira malire a tsiku a {limit}.' },
  'detail.connectorNotForCollections': { en: 'Connector {connectorId} does not take collections.', ny: 'Cholumikizira {connectorId} sichilandira malipiro.' },
  'detail.timedAccountNotFound': { en: 'Timed account {timedAccountNumber} was not found.', ny: 'Akaunti yanthawi {timedAccountNumber} sinapezeke.' },
  'detail.timedAccountExpired': { en: 'Timed account {timedAccountNumber} expired at {expiryDate}.', ny: 'Akaunti yanthawi {timedAccountNumber} inatha pa {expiryDate}.' },
  'detail.timedAccountBeingPaid': { en: 'Timed account {timedAccountNumber} is being paid over a payment rail; its outcome is awaited.', ny: 'Akaunti yanthawi {timedAccountNumber} ikulipiridwa kudzera pa njira yolipirira; tikuyembekezera zotsatira.' },
  'detail.timedAccountPaid': { en: 'Timed account {timedAccountNumber} has already been paid.', ny: 'Akaunti yanthawi {timedAccountNumber} inalipiridwa kale.' },
  'detail.amountMismatch': { en: 'The amount {amount} does not equal the requested {requested}.', ny: 'Ndalama {amount} sikufanana ndi yopemphedwa {requested}.' },
  'detail.currencyMismatch': { en: 'Currency {currencyCode} does not match the request\'s {requested}.', ny: 'Ndalama za mtundu {currencyCode} sizikufanana ndi {requested} zopemphedwa.' },
  'detail.referenceOpen': { en: 'Reference {referenceNumber} already has an open request to pay.', ny: 'Nambala {referenceNumber} ili kale ndi pempho la malipiro lotseguka.' },
  'detail.paymentAccountNotFound': { en: 'Payment account {accountNumber} was not found.', ny: 'Akaunti yolipirira {accountNumber} sinapezeke.' },
  'detail.collectionNotFound': { en: 'Transaction {transactionReferenceNumber} was not found.', ny: 'Malipiro {transactionReferenceNumber} sanapezeke.' },
  'detail.alreadyReversed': { en: 'Transaction {transactionReferenceNumber} has already been reversed.', ny: 'Malipiro {transactionReferenceNumber} anabwezedwa kale.' },

  // field validation messages (errors[])
  'field.spelledTwice': { en: '{field} is given more than once ({spellings}, which differ only in case); send it once.', ny: '{field} yaperekedwa kangapo ({spellings}, zosiyana ndi zilembo zazikulu kapena zazing\'ono zokha); itumizeni kamodzi.' },
  'field.required': { en: '{field} is required.', ny: '{field} ikufunika.' },
  'field.type': { en: '{field} must be {type}.', ny: '{field} iyenera kukhala {type}.' },
  'field.minimum': { en: '{field} must be at least {limit}.', ny: '{field} isachepe {limit}.' },
  'field.maximum': { en: '{field} must be at most {limit}.', ny: '{field} isapitirire {limit}.' },
  'field.minLength': { en: '{field} must be at least {limit} characters long.', ny: '{field} ikhale ndi zilembo zosachepera {limit}.' },
  'field.maxLength': { en: '{field} must be at most {limit} characters long.', ny: '{field} ikhale ndi zilembo zosapitirira {limit}.' },
  'field.minItems': { en: '{field} must have at least {limit} items.', ny: '{field} ikhale ndi zinthu zosachepera {limit}.' },
  'field.maxItems': { en: '{field} must have at most {limit} items.', ny: '{field} ikhale ndi zinthu zosapitirira {limit}.' },
  'field.pattern': { en: '{field} has an invalid format.', ny: '{field} sinalembedwe moyenera.' },
  'field.format': { en: '{field} must be a valid {format}.', ny: '{field} iyenera kukhala {format} yoyenera.' },
  'field.enum': { en: '{field} must be one of: {values}.', ny: '{field} iyenera kukhala imodzi mwa: {values}.' },
  'field.money': { en: '{field} must be an amount from {min} to {max} with at most 2 decimals.', ny: '{field} iyenera kukhala ndalama kuyambira {min} mpaka {max} yokhala ndi madesimali osapitirira 2.' },
  'field.text': { en: '{field} contains a character that is not allowed (NUL or an unpaired surrogate).', ny: '{field} ili ndi chilembo chosaloledwa (NUL kapena surrogate yosakwanira).' },
  'field.invalid': { en: '{field} is invalid.', ny: '{field} sili bwino.' },
  'field.merchantAccountNumber': { en: 'Merchant Account Number should be 8 numbers only.', ny: 'Nambala ya Akaunti ya Wamalonda ikhale ya manambala 8 okha.' },
  'field.email': { en: '{field} must be a valid e-mail address of at most {limit} characters.', ny: '{field} ikhale imelo yoyenera ya zilembo zosapitirira {limit}.' },
  'field.emailInvisible': {
    en: '{field} must not contain invisible or formatting characters (such as a zero-width space or a soft hyphen).',
    ny: '{field} isakhale ndi zilembo zosaoneka kapena zokonza kalembedwe (monga zero-width space kapena soft hyphen).',
  },
  'field.emailMixedScripts': {
    en: '{field} mixes letters of different scripts (such as Latin and Greek) before the @.',
    ny: '{field} ikusakaniza malembo a mitundu yosiyana (monga Chilatini ndi Chigiriki) patsogolo pa @.',
  },
  'field.idempotencyKeyRequired': {
    en: 'X-Idempotency-Key is required on this operation: send a new key (15 to 80 letters, digits and hyphens) with each request, and the same key when you retry it.',
    ny: 'X-Idempotency-Key ikufunika pa ntchito iyi: tumizani kiyi yatsopano (zilembo 15 mpaka 80: malembo, manambala ndi mizere) ndi pempho lililonse, ndi kiyi yomweyo mukayesanso.',
  },
  'field.idempotencyKey': { en: 'X-Idempotency-Key must be 15 to 80 characters of letters, digits and hyphens.', ny: 'X-Idempotency-Key ikhale ya zilembo 15 mpaka 80: malembo, manambala ndi mizere.' },
  'field.headerMismatch': { en: 'Header {header} must equal {field} in the body.', ny: 'Mutu {header} ufanane ndi {field} wa m\'thupi.' },

  // type names used in field.type
  'type.integer': { en: 'a whole number', ny: 'nambala yathunthu' },
  'type.number': { en: 'a number', ny: 'nambala' },
  'type.string': { en: 'text', ny: 'mawu' },
  'type.boolean': { en: 'true or false', ny: 'true kapena false' },
  'type.object': { en: 'an object', ny: 'chinthu (object)' },
  'type.array': { en: 'a list', ny: 'mndandanda' },

  // success messages (bare JSON strings)
  'ok.apiKeyCreated': { en: 'API key has been created successfully', ny: 'Kiyi ya API yapangidwa bwino' },
  'ok.apiKeyActivated': { en: 'API key has been activated successfully', ny: 'Kiyi ya API yayambitsidwa bwino' },
  // The gateway's texts (docs.onekhusa.com): deactivate answers the status change, not the word.
  'ok.apiKeyDeactivated': { en: 'API key status has been changed successfully', ny: 'Momwe kiyi ya API ilili zasinthidwa bwino' },
  'ok.apiKeyDeleted': { en: 'API key has been deleted successfully', ny: 'Kiyi ya API yachotsedwa bwino' },

  'ok.webhookCreated': { en: 'Merchant webhook has been created successfully', ny: 'Webhook ya wamalonda yapangidwa bwino' },
  'ok.webhookUpdated': { en: 'Merchant webhook has been updated successfully', ny: 'Webhook ya wamalonda yasinthidwa bwino' },
  'ok.listenerDeleted': { en: 'Webhook listener has been deleted successfully', ny: 'Listener ya webhook yachotsedwa bwino' },
  'ok.webhookDeleted': { en: 'Merchant webhook has been deleted successfully', ny: 'Webhook ya wamalonda yachotsedwa bwino' },

  // webhook event names (product.md §11)
  'event.payment.success': { en: 'Payment Success Notification', ny: 'Chidziwitso cha Malipiro Opambana' },
  'event.payment.reversed': { en: 'Payment Reversal Notification', ny: 'Chidziwitso cha Malipiro Obwezedwa' },
  'event.payrequest.success': { en: 'Payment Request Success Notification', ny: 'Chidziwitso cha Pempho la Malipiro Lopambana' },
  'event.payrequest.reversed': { en: 'Payment Request Reversal Notification', ny: 'Chidziwitso cha Pempho la Malipiro Lobwezedwa' },
  'event.batch.received': { en: 'Batch Received Notification', ny: 'Chidziwitso cha Gulu Lolandiridwa' },
  'event.batch.failed': { en: 'Batch Failed Notification', ny: 'Chidziwitso cha Gulu Lolephera' },
  'event.batch.payout.success': { en: 'Batch Payout Success Notification', ny: 'Chidziwitso cha Malipiro a Gulu Opambana' },
  'event.batch.payout.failed': { en: 'Batch Payout Failed Notification', ny: 'Chidziwitso cha Malipiro a Gulu Olephera' },
  'event.batch.payout.reversed': { en: 'Batch Payout Reversal Notification', ny: 'Chidziwitso cha Malipiro a Gulu Obwezedwa' },
  'event.payout.success': { en: 'Payout Success Notification', ny: 'Chidziwitso cha Malipiro Otuluka Opambana' },
  'event.payout.failed': { en: 'Payout Failed Notification', ny: 'Chidziwitso cha Malipiro Otuluka Olephera' },
  'event.payout.reversed': { en: 'Payout Reversal Notification', ny: 'Chidziwitso cha Malipiro Otuluka Obwezedwa' },
  'event.unknown': { en: 'Unknown event (stored, never sent)', ny: 'Chochitika chosadziwika (chasungidwa, sichitumizidwa)' },

  'ok.transactionSuccessful': { en: 'Transaction successful', ny: 'Malipiro ayenda bwino' },
  'ok.transactionReversed': { en: 'Transaction reversed', ny: 'Malipiro abwezedwa' },
  'status.S': { en: 'Success', ny: 'Zayenda bwino' },
  'status.R': { en: 'Reversed', ny: 'Zabwezedwa' },

  // hosted checkout (product.md §10): the initiate endpoint's field messages and the page
  'field.redirectUrl': { en: '{field} must be an absolute http(s) URL without credentials, at most {limit} characters.', ny: '{field} ikhale adilesi yathunthu ya http(s) yopanda mawu achinsinsi, ya zilembo zosapitirira {limit}.' },
  'checkout.title': { en: 'Checkout', ny: 'Kulipira' },
  'checkout.sandbox': { en: 'Sandbox: no real money moves.', ny: 'Kuyesera: si ndalama zenizeni.' },
  'checkout.payTo': { en: 'Pay to', ny: 'Lipirani kwa' },
  'checkout.amount': { en: 'Amount', ny: 'Ndalama' },
  'checkout.description': { en: 'For', ny: 'Za' },
  'checkout.reference': { en: 'Reference', ny: 'Nambala yolozera' },
  'checkout.timedAccount': { en: 'Timed account', ny: 'Akaunti yanthawi' },
  'checkout.timedAccountHint': { en: 'Pay into this account number before it expires.', ny: 'Lipirani ku nambala ya akaunti iyi nthawi yake isanathe.' },
  'checkout.expiresIn': { en: 'Expires in', ny: 'Itha pakadutsa' },
  'checkout.expired': { en: 'This payment request has expired.', ny: 'Nthawi ya pempho la malipiroli yatha.' },
  'checkout.payWith': { en: 'Pay with', ny: 'Lipirani ndi' },
  'checkout.choose': { en: 'Choose a wallet or bank', ny: 'Sankhani chikwama kapena banki' },
  'checkout.wallets': { en: 'Mobile wallets', ny: 'Zikwama za pa foni' },
  'checkout.banks': { en: 'Banks', ny: 'Mabanki' },
  'checkout.pay': { en: 'Pay {amount}', ny: 'Lipirani {amount}' },
  'checkout.paying': { en: 'Processing…', ny: 'Tikukonza…' },
  'checkout.cancel': { en: 'Cancel and return to {merchant}', ny: 'Letsani ndi kubwerera kwa {merchant}' },
  'checkout.return': { en: 'Return to {merchant}', ny: 'Bwererani kwa {merchant}' },
  'checkout.language': { en: 'Language', ny: 'Chiyankhulo' },
  'checkout.live': { en: 'Secure payment', ny: 'Malipiro otetezeka' },
  'checkout.payFromApp': {
    en: 'Send exactly {amount} to this account number from your bank or mobile wallet. This page moves on by itself once the payment arrives.',
    ny: 'Tumizani {amount} ndendende ku nambala ya akaunti iyi kuchokera ku banki kapena chikwama cha pa foni. Tsambali lipitirira lokha malipiro akafika.',
  },
  'checkout.waiting': { en: 'Waiting for your payment…', ny: 'Tikudikira malipiro anu…' },
  'checkout.forbiddenTitle': { en: 'Request refused', ny: 'Pempho lakanidwa' },
  'checkout.forbidden': { en: 'This form was not sent from the payment page. Open the payment link again.', ny: 'Fomuyi sinatumizidwe kuchokera patsamba la malipiro. Tsegulaninso ulalo wa malipiro.' },
  'checkout.notFoundTitle': { en: 'Payment link not found', ny: 'Ulalo wa malipiro sunapezeke' },
  'checkout.notFound': { en: 'This payment link is not valid. Ask the merchant for a new one.', ny: 'Ulalo wa malipirowu siwolondola. Pemphani wamalonda akupatseni wina.' },
  'checkout.errorTitle': { en: 'Something went wrong', ny: 'Pali vuto' },
  'checkout.error': { en: 'The payment could not be processed right now. Please try again shortly.', ny: 'Malipiro sanathe kukonzedwa pakali pano. Chonde yesaninso posachedwa.' },

  // disbursements
  'detail.batchNotFound': { en: 'Batch {batchNumber} was not found.', ny: 'Gulu la malipiro {batchNumber} silinapezeke.' },
  'detail.batchValidating': { en: 'Batch {batchNumber} is still being validated; try again in a few seconds.', ny: 'Gulu la malipiro {batchNumber} likuwunikidwabe; yesaninso pakapita masekondi angapo.' },
  'detail.batchState': { en: 'Batch {batchNumber} is {status}: it cannot be {action} now.', ny: 'Gulu la malipiro {batchNumber} lili {status}: silingathe kuchitidwa {action} pano.' },
  'detail.fourEyes': { en: '{actor} already acted on batch {batchNumber} as {role}; another user must {action} it.', ny: '{actor} anachita kale pa gulu {batchNumber} ngati {role}; munthu wina ayenera {action}.' },
  'detail.actorNotUser': {
    en: '{actor} is not an active user of merchant account {merchantAccountNumber}; its batches are acted on only by its active merchant users.',
    ny: '{actor} si wogwiritsa ntchito wotsegulidwa wa akaunti ya wamalonda {merchantAccountNumber}; magulu ake amachitidwa ndi ogwiritsa ntchito ake otsegulidwa okha.',
  },
  'detail.decisionsInConsole': {
    en: 'Merchant account {merchantAccountNumber} takes its payout decisions in the merchant console only, where each is bound to the signed-in user: {subject} {id} was not changed.',
    ny: 'Akaunti ya wamalonda {merchantAccountNumber} imapanga zisankho za malipiro patsamba la wamalonda lokha, pomwe chisankho chilichonse chimamangidwa kwa wogwiritsa ntchito amene walowa: {subject} {id} sichinasinthidwe.',
  },
  'detail.subjectBatch': { en: 'batch', ny: 'gulu' },
  'detail.subjectPayout': { en: 'payout', ny: 'malipiro' },
  'detail.actorRole': { en: '{actor} ({role}) may not {action} batch {batchNumber}.', ny: '{actor} ({role}) saloledwa {action} (gulu {batchNumber}).' },
  'detail.actorRoleOwn': {
    en: '{actor} ({role}) may {action} only a batch they captured; batch {batchNumber} was captured by someone else.',
    ny: '{actor} ({role}) angathe {action} gulu lomwe analowetsa yekha; gulu {batchNumber} linalowetsedwa ndi munthu wina.',
  },
  'actionVerb.review': { en: 'review', ny: 'kuliwunika' },
  'actionVerb.approve': { en: 'approve', ny: 'kulivomereza' },
  'actionVerb.reject': { en: 'reject', ny: 'kulikana' },
  'actionVerb.cancel': { en: 'cancel', ny: 'kuliletsa' },
  'actionVerb.transferFunds': { en: 'transfer the funds of', ny: 'kutumiza ndalama za' },
  'detail.scheduledDateRequired': { en: 'scheduledDate is required when isBatchScheduled is true.', ny: 'scheduledDate ikufunika ngati isBatchScheduled ndi true.' },
  'detail.scheduledDatePast': { en: 'scheduledDate {date} is in the past; use today or a later day (UTC).', ny: 'scheduledDate {date} yadutsa; gwiritsani ntchito lero kapena tsiku lina lakutsogolo (UTC).' },
  'detail.scheduledDateTooFar': {
    en: 'scheduledDate {date} is more than {days} days ahead; use {latest} or an earlier day (UTC).',
    ny: 'scheduledDate {date} ndi yopitirira masiku {days} kutsogolo; gwiritsani ntchito {latest} kapena tsiku loyambirira (UTC).',
  },
  'detail.connectorNoPayouts': { en: 'Connector {connectorId} does not take payouts.', ny: 'Cholumikizira {connectorId} sichitumiza malipiro.' },
  'detail.accountFormat': { en: 'Account {account} is not a valid {channel} account number.', ny: 'Akaunti {account} si nambala yoyenera ya {channel}.' },
  'detail.payoutNotFound': { en: 'Transaction {reference} was not found.', ny: 'Malipiro {reference} sanapezeke.' },
  // rail reconciliation (issue 25): the operator's messages
  'detail.railNotReconcilable': { en: 'Rail {rail} is not configured here, or keeps no record to reconcile with.', ny: 'Njira {rail} sinakhazikitsidwe pano, kapena ilibe zolemba zoyerekeza nazo.' },
  'detail.reconcileDayFuture': { en: 'Day {day} has not come yet (today is {today}, UTC).', ny: 'Tsiku {day} silinafike (lero ndi {today}, UTC).' },
  'detail.reconciliationNotFound': { en: 'Reconciliation run {runId} was not found.', ny: 'Kuyerekeza {runId} sikunapezeke.' },
  'detail.railExceptionNotFound': { en: 'Rail exception {exceptionId} was not found.', ny: 'Kusiyana {exceptionId} sikunapezeke.' },
  'detail.railExceptionResolved': {
    en: 'Rail exception {exceptionId} was already resolved ({resolution}) by {resolvedBy} at {resolvedAt}; it cannot be resolved again.',
    ny: 'Kusiyana {exceptionId} kunathetsedwa kale ({resolution}) ndi {resolvedBy} pa {resolvedAt}; sikungathetsedwenso.',
  },
  'detail.railExceptionNotCorrectable': {
    en: 'Rail exception {exceptionId} ({kind}) has no ledger difference to correct; accept it with a reason instead.',
    ny: 'Kusiyana {exceptionId} ({kind}) kulibe ndalama zokonza; kuvomerezeni ndi chifukwa m\'malo mwake.',
  },
  'detail.badFile': { en: 'The file could not be read as {contentType}: {reason}', ny: 'Fayilo silinawerengedwe ngati {contentType}: {reason}' },
  'detail.filesBusy': { en: 'Other files are being read right now; send this one again in a few seconds.', ny: 'Mafayilo ena akuwerengedwa pakali pano; tumizaninso ili pakapita masekondi angapo.' },
  'detail.noHeaderColumns': { en: 'The file lacks the column(s) {columns}.', ny: 'Fayilo lilibe mizati {columns}.' },
  // single payouts awaiting approval (issue 14), batch documents
  'field.dateOrDateTime': {
    en: '{field} must be a date (YYYY-MM-DD) or a date-time (e.g. 2025-09-19T12:47:31.183Z), taken as its UTC date.',
    ny: '{field} ikhale tsiku (YYYY-MM-DD) kapena tsiku ndi nthawi (mwachitsanzo 2025-09-19T12:47:31.183Z), lotengedwa ngati tsiku la UTC.',
  },
  'detail.payoutState': { en: 'Transaction {reference} is {status}: it cannot be {action} now.', ny: 'Malipiro {reference} ali {status}: sangathe kuchitidwa {action} pano.' },
  'detail.fourEyesPayout': {
    en: '{actor} already acted on transaction {reference} as {role}; another user must {action} it.',
    ny: '{actor} anachita kale pa malipiro {reference} ngati {role}; munthu wina ayenera {action}.',
  },
  'detail.actorNotUserPayout': {
    en: '{actor} is not an active user of merchant account {merchantAccountNumber}; its payouts are acted on only by its active merchant users.',
    ny: '{actor} si wogwiritsa ntchito wotsegulidwa wa akaunti ya wamalonda {merchantAccountNumber}; malipiro ake amachitidwa ndi ogwiritsa ntchito ake otsegulidwa okha.',
  },
  'detail.actorRolePayout': { en: '{actor} ({role}) may not {action} transaction {reference}.', ny: '{actor} ({role}) saloledwa {action} (malipiro {reference}).' },
  'detail.documentsBusy': { en: 'Other documents are being prepared right now; ask again in a few seconds.', ny: 'Zikalata zina zikukonzedwa pakali pano; pemphaninso pakapita masekondi angapo.' },
  'payoutStatus.P': { en: 'pending', ny: 'akuyembekezera' },
  'payoutStatus.reviewed': { en: 'reviewed and awaiting approval', ny: 'awunikidwa ndipo akuyembekezera kuvomerezedwa' },
  'payoutStatus.T': { en: 'transferring funds', ny: 'akutumiza ndalama' },
  'payoutStatus.S': { en: 'successful', ny: 'apambana' },
  'payoutStatus.F': { en: 'failed', ny: 'alephera' },
  'payoutStatus.X': { en: 'rejected', ny: 'akanidwa' },
  'payoutStatus.R': { en: 'reversed', ny: 'abwezedwa' },
  'ok.singleReviewed': { en: 'Transaction {reference} has been reviewed successfully', ny: 'Malipiro {reference} awunikidwa bwino' },
  'ok.singleRejected': { en: 'Transaction {reference} has been rejected successfully', ny: 'Malipiro {reference} akanidwa bwino' },
  'action.review': { en: 'reviewed', ny: 'kuwunikiridwa' },
  'action.approve': { en: 'approved', ny: 'kuvomerezedwa' },
  'action.reject': { en: 'rejected', ny: 'kukanidwa' },
  'action.cancel': { en: 'cancelled', ny: 'kuletsedwa' },
  'action.transferFunds': { en: 'transferred', ny: 'kutumizidwa ndalama' },
  'batchStatus.Q': { en: 'queued', ny: 'likudikira' },
  'batchStatus.P': { en: 'pending', ny: 'likuyembekezera' },
  'batchStatus.R': { en: 'reviewed', ny: 'lawunikidwa' },
  'batchStatus.A': { en: 'approved', ny: 'lavomerezedwa' },
  'batchStatus.T': { en: 'transferring funds', ny: 'likutumiza ndalama' },
  'batchStatus.C': { en: 'completed', ny: 'latha' },
  'batchStatus.E': { en: 'in error', ny: 'lili ndi zolakwika' },
  'batchStatus.F': { en: 'failed', ny: 'lalephera' },
  'batchStatus.N': { en: 'cancelled', ny: 'laletsedwa' },
  'batchStatus.X': { en: 'rejected', ny: 'lakanidwa' },
  'role.capturer': { en: 'capturer', ny: 'woyambitsa' },
  'role.reviewer': { en: 'reviewer', ny: 'wowunika' },
  // A console upload's row whose amount is not one (files.ts 'fail-line'); the text as written, at most 40 characters.
  'lineError.amountFormat': {
    en: 'The amount "{amount}" is not a number of MWK from 0.01 to 1,000,000,000 with at most 2 decimals.',
    ny: 'Ndalama "{amount}" si nambala ya MWK kuyambira 0.01 mpaka 1,000,000,000 yokhala ndi madesimali awiri kapena ochepera.',
  },
  'lineError.connectorUnknown': { en: 'Connector {connectorId} does not exist.', ny: 'Cholumikizira {connectorId} palibe.' },
  'lineError.connectorInactive': { en: 'Connector {connectorId} is inactive.', ny: 'Cholumikizira {connectorId} sichikugwira ntchito.' },
  'lineError.connectorNoPayouts': { en: 'Connector {connectorId} does not take payouts.', ny: 'Cholumikizira {connectorId} sichitumiza malipiro.' },
  'lineError.walletFormat': { en: 'A wallet account must be a 12-digit number starting with 265.', ny: 'Akaunti ya chikwama iyenera kukhala manambala 12 oyamba ndi 265.' },
  'lineError.bankFormat': { en: 'A bank account number must have 10 to 16 digits.', ny: 'Nambala ya akaunti ya banki iyenera kukhala ndi manambala 10 mpaka 16.' },
  'lineError.amountBelowMinimum': { en: 'The amount is below the minimum of {limit} for {transactionCode}.', ny: 'Ndalamayi ndi yochepa kuposa {limit} ya {transactionCode}.' },
  'lineError.amountAboveMaximum': { en: 'The amount is above the maximum of {limit} for {transactionCode}.', ny: 'Ndalamayi ndi yochuluka kuposa {limit} ya {transactionCode}.' },
  'lineError.duplicateReference': { en: 'The sourceReferenceNumber is already used on line {line}.', ny: 'sourceReferenceNumber yagwiritsidwa kale ntchito pa mzere {line}.' },
  'batchError.noValidLines': { en: 'No valid transaction in the batch.', ny: 'Palibe malipiro oyenera mu gululi.' },
  'batchError.unreadableUpload': { en: 'The uploaded batch could not be read back for validation; send it again.', ny: 'Gulu lomwe mudatumiza silingawerengedwe kuti liyesedwe; litumizeninso.' },

  // analytics
  'detail.rangeReversed': { en: 'fromDate {fromDate} is after toDate {toDate}.', ny: 'fromDate {fromDate} ili pambuyo pa toDate {toDate}.' },
  'detail.rangeTooLong': { en: 'The range covers {days} days; at most {max} are allowed.', ny: 'Nthawiyi ili ndi masiku {days}; ololedwa ndi {max} okha.' },

  // the console's lists (src/modules/console/<area>/queries.ts)
  'detail.cursorInvalid': { en: 'The page position {field} does not belong to this list; start again from the first page.', ny: 'Malo a tsamba {field} sali a mndandandawu; yambaninso pa tsamba loyamba.' },
  'detail.valueInvalid': { en: '{field} is not valid: {value}.', ny: '{field} silili bwino: {value}.' },

  // settlement accounts
  // The gateway's texts (docs.onekhusa.com merchants/*SettlementAccount); the new accountId is in X-Account-Id.
  'ok.settlementCreated': { en: 'Merchant bank account has been created successfully', ny: 'Akaunti ya banki ya wamalonda yapangidwa bwino' },
  'ok.settlementActivated': { en: 'Merchant bank account has been activated successfully', ny: 'Akaunti ya banki ya wamalonda yayambitsidwa bwino' },
  'ok.settlementDeactivated': { en: 'Merchant bank account has been deactivated successfully', ny: 'Akaunti ya banki ya wamalonda yaimitsidwa bwino' },
  'ok.settlementUpdated': { en: 'Merchant bank account has been updated successfully', ny: 'Akaunti ya banki ya wamalonda yasinthidwa bwino' },
  'ok.settlementDeleted': { en: 'Merchant bank account has been deleted successfully', ny: 'Akaunti ya banki ya wamalonda yachotsedwa bwino' },
  'detail.settlementNotFound': { en: 'Settlement account {accountId} was not found.', ny: 'Akaunti yolandirira ndalama {accountId} sinapezeke.' },
  'detail.settlementNotBank': { en: 'Connector {connectorId} is not a bank; settlement accounts are bank accounts.', ny: 'Cholumikizira {connectorId} si banki; akaunti zolandirira ndalama ndi za ku banki.' },
  'detail.settlementActive': { en: 'Settlement account {accountId} ({accountNumber}) is already active; deactivate it first.', ny: 'Akaunti {accountId} ({accountNumber}) ikugwira kale ntchito; iimitseni kaye.' },
  'detail.settlementNotActive': { en: 'Settlement account {accountId} is inactive; only the active account can be updated.', ny: 'Akaunti {accountId} siikugwira ntchito; akaunti yokhayo yomwe ikugwira ntchito ndi imene ingasinthidwe.' },
  'detail.settlementIsActive': { en: 'Settlement account {accountId} is active; deactivate it before deleting it.', ny: 'Akaunti {accountId} ikugwira ntchito; iimitseni musanayichotse.' },

  // merchant users (product.md §13): API messages, the invitation e-mail and the set-password page
  // The gateway's texts (docs.onekhusa.com users/*); the new userId is in X-User-Id.
  'ok.userCreated': { en: 'The user account has been created successfully.', ny: 'Akaunti ya wogwiritsa ntchito yapangidwa bwino.' },
  'ok.userUpdated': { en: 'User account has been updated successfully', ny: 'Akaunti ya wogwiritsa ntchito yasinthidwa bwino' },
  'ok.userActivated': { en: 'User account status has been changed successfully', ny: 'Momwe akaunti ya wogwiritsa ntchito ilili zasinthidwa bwino' },
  'ok.userClosed': { en: 'User account status has been changed successfully', ny: 'Momwe akaunti ya wogwiritsa ntchito ilili zasinthidwa bwino' },
  'ok.userReinvited': { en: 'The user invitation email sent', ny: 'Imelo yoitanira wogwiritsa ntchito yatumizidwa' },
  'detail.userNotFound': { en: 'Merchant user {userId} was not found.', ny: 'Wogwiritsa ntchito {userId} sanapezeke.' },
  'detail.userEmailExists': { en: 'A user with e-mail address {emailAddress} already exists for this merchant account.', ny: 'Wogwiritsa ntchito wa imelo {emailAddress} alipo kale pa akaunti iyi.' },
  'detail.passwordAlreadySet': { en: 'User {userId} has already set a password; there is no invitation to resend.', ny: 'Wogwiritsa ntchito {userId} anaika kale mawu achinsinsi; palibe kuitana koti mutumizenso.' },
  'detail.userClosed': { en: 'User {userId} is closed; activate the user before sending an invitation.', ny: 'Wogwiritsa ntchito {userId} watsekedwa; muyambitseni musanamutumizire kuitana.' },
  'field.userId': { en: '{field} must be a user id (a UUID such as 6f1c2a4e-8b7d-4c1e-9a3f-2d5b7e9c0a11).', ny: '{field} ikhale nambala ya wogwiritsa ntchito (UUID monga 6f1c2a4e-8b7d-4c1e-9a3f-2d5b7e9c0a11).' },
  'field.personName': { en: '{field} must be 1 to {limit} characters, not only spaces, without control characters.', ny: '{field} ikhale ya zilembo 1 mpaka {limit}, osati mipata yokha, yopanda zilembo zolamulira.' },
  'field.phoneMalawi': { en: '{field} must be a Malawian mobile number written 265XXXXXXXXX, +265XXXXXXXXX or 0XXXXXXXXX, whose 9-digit number starts with 8 or 9 (e.g. 0991234567).', ny: '{field} ikhale nambala ya foni ya ku Malawi yolembedwa 265XXXXXXXXX, +265XXXXXXXXX kapena 0XXXXXXXXX, yomwe manambala ake 9 ayambira ndi 8 kapena 9 (mwachitsanzo 0991234567).' },
  'field.roleUnknown': { en: 'Role Id {roleId} does not exist; use one of: {roles}.', ny: 'Role Id {roleId} palibe; gwiritsani ntchito imodzi mwa: {roles}.' },
  'invite.subject': { en: 'You are invited to {merchant}', ny: 'Mwaitanidwa ku {merchant}' },
  'invite.greeting': { en: 'Hello {name},', ny: 'Moni {name},' },
  'invite.intro': { en: 'You have been added as a user of {merchant} on OneKhusa (role: {role}). Set your password to start:', ny: 'Mwawonjezedwa ngati wogwiritsa ntchito wa {merchant} pa OneKhusa (udindo: {role}). Ikani mawu achinsinsi kuti muyambe:' },
  'invite.action': { en: 'Set your password', ny: 'Ikani mawu achinsinsi' },
  'invite.expiry': { en: 'The link works once and expires on {expiry}.', ny: 'Ulalowu umagwira ntchito kamodzi kokha ndipo utha pa {expiry}.' },
  'invite.ignore': { en: 'If you did not expect this e-mail, you can ignore it.', ny: 'Ngati simumayembekezera imelo iyi, mungainyalanyaze.' },
  'setPassword.title': { en: 'Set your password', ny: 'Ikani mawu achinsinsi' },
  'setPassword.for': { en: 'For {email} at {merchant}', ny: 'Za {email} ku {merchant}' },
  'setPassword.email': { en: 'E-mail address', ny: 'Imelo' },
  'setPassword.password': { en: 'New password', ny: 'Mawu achinsinsi atsopano' },
  'setPassword.confirmation': { en: 'Repeat the password', ny: 'Lembaninso mawu achinsinsi' },
  'setPassword.rules': { en: '{min} to {max} characters, not a common password. A long phrase is easy to remember and hard to guess.', ny: 'Zilembo {min} mpaka {max}, osati mawu achinsinsi ofala. Chiganizo chachitali n\'chosavuta kukumbukira komanso chovuta kuchiganizira.' },
  'setPassword.expires': { en: 'This link expires on {expiry}.', ny: 'Ulalowu utha pa {expiry}.' },
  'setPassword.submit': { en: 'Set password', ny: 'Ikani mawu achinsinsi' },
  'setPassword.tooShort': { en: 'The password must be at least {min} characters long.', ny: 'Mawu achinsinsi akhale ndi zilembo zosachepera {min}.' },
  'setPassword.tooLong': { en: 'The password must be at most {max} characters long.', ny: 'Mawu achinsinsi akhale ndi zilembo zosapitirira {max}.' },
  'setPassword.common': { en: 'This password is on a list of common passwords that attackers try first. Choose another one.', ny: 'Mawu achinsinsiwa ali pa mndandanda wa mawu ofala amene achiwembu amayesa poyamba. Sankhani ena.' },
  'setPassword.mismatch': { en: 'The two passwords are not the same.', ny: 'Mawu achinsinsi awiriwa sakufanana.' },
  'setPassword.doneTitle': { en: 'Your password is set', ny: 'Mawu anu achinsinsi aikidwa' },
  'setPassword.done': { en: 'Your password has been saved. You can now sign in to the merchant console.', ny: 'Mawu anu achinsinsi asungidwa. Tsopano mutha kulowa patsamba la wamalonda.' },
  'setPassword.signIn': { en: 'Sign in', ny: 'Lowani' },
  'setPassword.invalidTitle': { en: 'This link is no longer valid', ny: 'Ulalowu sukugwiranso ntchito' },
  'setPassword.invalid': { en: 'The link has been used, has expired or was replaced by a newer invitation. Ask your administrator to send you a new one.', ny: 'Ulalowu unagwiritsidwa kale ntchito, nthawi yake yatha, kapena walowedwa m\'malo ndi kuitana kwatsopano. Pemphani woyang\'anira wanu akutumizireni wina.' },
  'setPassword.errorTitle': { en: 'Something went wrong', ny: 'Pali vuto' },
  'setPassword.error': { en: 'Your password could not be set right now. Please open the link from your e-mail again shortly.', ny: 'Mawu anu achinsinsi sanathe kuikidwa pakali pano. Chonde tsegulaninso ulalo wa mu imelo yanu posachedwa.' },

  // names shown to people
  'status.A': { en: 'Active', ny: 'Ikugwira ntchito' },
  'status.I': { en: 'Inactive', ny: 'Siikugwira ntchito' },
  'status.C': { en: 'Closed', ny: 'Yatsekedwa' },
  // The gateway's names (docs.onekhusa.com merchants/get, merchants/getAll, disbursements/batch-getBatch).
  'level.1': { en: 'Initiator Only', ny: 'Woyambitsa Yekha' },
  'level.2': { en: 'Initiator -> Approver', ny: 'Woyambitsa -> Wovomereza' },
  'level.3': { en: 'Initiator -> Reviewer -> Approver', ny: 'Woyambitsa -> Woona -> Wovomereza' },

  // connectors and merchant account statuses (issue 14)
  'connectorKind.B': { en: 'bank', ny: 'banki' },
  'connectorKind.M': { en: 'mobile money operator', ny: 'kampani ya ndalama za pa foni' },
  'connectorDescription.both': { en: 'The {kind} supports the processing of disbursement and collection transactions', ny: 'Ndi {kind} yomwe imakonza malipiro otuluka ndi olowa' },
  'connectorDescription.disbursement': { en: 'The {kind} supports the processing of disbursement transactions', ny: 'Ndi {kind} yomwe imakonza malipiro otuluka' },
  'connectorDescription.collection': { en: 'The {kind} supports the processing of collection transactions', ny: 'Ndi {kind} yomwe imakonza malipiro olowa' },
  'connectorDescription.none': { en: 'The {kind} does not process transactions at present', ny: 'Ndi {kind} yomwe sikukonza malipiro pakali pano' },
  'merchantStatus.A': { en: 'Active', ny: 'Ikugwira ntchito' },
  'merchantStatus.I': { en: 'Inactive', ny: 'Siikugwira ntchito' },
  'merchantStatus.C': { en: 'Closed', ny: 'Yatsekedwa' },
  'merchantStatus.S': { en: 'Suspended', ny: 'Yaimitsidwa kaye' },
  'merchantStatus.B': { en: 'Blacklisted', ny: 'Yaletsedwa kotheratu' },
  'merchantAction.activate': { en: 'activated', ny: 'kuyambitsidwa' },
  'merchantAction.suspend': { en: 'suspended', ny: 'kuimitsidwa kaye' },
  'merchantAction.blacklist': { en: 'blacklisted', ny: 'kuletsedwa kotheratu' },
  'detail.merchantStatusChange': {
    en: 'Merchant account {merchantAccountNumber} is {status}: it cannot be {action}.',
    ny: 'Akaunti ya wamalonda {merchantAccountNumber} ndi {status}: singathe {action}.',
  },
  'detail.merchantCurrencyFixed': {
    en: 'Merchant account {merchantAccountNumber} keeps its currency {currencyCode}; it cannot be changed.',
    ny: 'Akaunti ya wamalonda {merchantAccountNumber} imasunga ndalama zake za {currencyCode}; sizingasinthidwe.',
  },
  'detail.statusReasonNotFound': { en: 'Status change reason {reasonId} was not found.', ny: 'Chifukwa cha kusintha {reasonId} sichinapezeke.' },
  'ok.merchantCreated': { en: 'Merchant has been created successfully', ny: 'Wamalonda wapangidwa bwino' },
  'ok.merchantUpdated': { en: 'Merchant has been updated successfully', ny: 'Wamalonda wasinthidwa bwino' },
  'ok.merchantActivated': { en: 'Merchant account has been activated successfully', ny: 'Akaunti ya wamalonda yayambitsidwa bwino' },
  'ok.merchantSuspended': { en: 'Merchant account has been suspended successfully', ny: 'Akaunti ya wamalonda yaimitsidwa kaye bwino' },
  'ok.merchantBlacklisted': { en: 'Merchant account has been blacklisted successfully', ny: 'Akaunti ya wamalonda yaletsedwa kotheratu bwino' },
} satisfies Record<string, Entry>;

export type MessageKey = keyof typeof MESSAGES;

export function t(lang: Lang, key: MessageKey, params: Params = {}): string {
  const template = MESSAGES[key][lang] ?? MESSAGES[key].en;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => (name in params ? String(params[name]) : `{${name}}`));
}

export function hasMessage(key: string): key is MessageKey {
  return Object.prototype.hasOwnProperty.call(MESSAGES, key);
}

/** Picks the best supported language from an Accept-Language header; unknown → en. */
export function negotiateLanguage(header: string | undefined): Lang {
  if (!header) return 'en';
  let best: Lang = 'en';
  let bestQ = -1;
  // Bounded: a header with thousands of entries is only read up to its first 20.
  for (const part of header.split(',').slice(0, 20)) {
    const [tag, ...attrs] = part.trim().toLowerCase().split(';');
    const primary = tag.split('-')[0] as Lang;
    if (!(LANGUAGES as readonly string[]).includes(primary)) continue;
    const qAttr = attrs.find((a) => a.trim().startsWith('q='));
    const q = qAttr ? Number(qAttr.trim().slice(2)) : 1;
    if (Number.isFinite(q) && q > bestQ) {
      best = primary;
      bestQ = q;
    }
  }
  return best;
}

/** "merchantAccountNumber" → "Merchant Account Number": how a field is named in messages. */
export function fieldLabel(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
