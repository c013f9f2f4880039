// Every text of the merchant console, in English and Chichewa (the API's own messages are in
// src/http/i18n.ts; this table has the same shape). Adding a message means adding it in both
// languages: the type below makes a missing one a compile error. Texts are plain: pages escape them.
import type { Lang } from '../../http/i18n.ts';

type Params = Record<string, string | number>;
type Entry = Record<Lang, string>;

const MESSAGES = {
  // the frame of every page
  'layout.skip': { en: 'Skip to the main content', ny: 'Pitani molunjika ku zomwe zili patsamba' },
  'layout.brand': { en: 'OneKhusa merchant console', ny: 'OneKhusa: tsamba la wamalonda' },
  'layout.sandbox': { en: 'Sandbox: test money only', ny: 'Sandbox: ndalama zoyesera zokha' },
  'layout.user': { en: 'Signed in as {name} ({role})', ny: 'Mwalowa ngati {name} ({role})' },
  'layout.merchant': { en: 'Merchant account {number}', ny: 'Akaunti ya wamalonda {number}' },
  'layout.signOut': { en: 'Sign out', ny: 'Tulukani' },
  'layout.language': { en: 'Language', ny: 'Chilankhulo' },
  'layout.navigation': { en: 'Sections', ny: 'Zigawo' },
  'layout.account': { en: 'Your account', ny: 'Akaunti yanu' },

  // role names by role code (migrations/0008); other roles show their stored name
  'role.MERC_ADMIN': { en: 'Merchant Administrator', ny: 'Woyang\'anira wa wamalonda' },
  'role.MERC_INITIATOR': { en: 'Merchant Initiator', ny: 'Woyambitsa wa wamalonda' },
  'role.MERC_REVIEWER': { en: 'Merchant Reviewer', ny: 'Wowunika wa wamalonda' },
  'role.MERC_APPROVER': { en: 'Merchant Approver', ny: 'Wovomereza wa wamalonda' },
  'role.MERC_VIEWER': { en: 'Merchant Viewer', ny: 'Wowona wa wamalonda' },

  'nav.home': { en: 'Home', ny: 'Poyambira' },
  'nav.collections': { en: 'Collections', ny: 'Zolandiridwa' },
  'nav.payouts': { en: 'Payouts', ny: 'Zotumizidwa' },
  'nav.statements': { en: 'Statements', ny: 'Masitetimenti' },
  'nav.analytics': { en: 'Analytics', ny: 'Kusanthula' },
  'section.collections': { en: 'Payments received from customers, each with its ledger lines and events.', ny: 'Malipiro olandiridwa kuchokera kwa makasitomala, ndi mizere ya leja ndi zochitika zake.' },
  'section.payouts': { en: 'Batches and single payouts, their progress and outcomes.', ny: 'Magulu a malipiro ndi malipiro amodzi, momwe akuyendera ndi zotsatira zake.' },
  'section.statements': { en: 'Ledger movements for a period, with opening and closing balances, and a CSV download.', ny: 'Kayendedwe ka ndalama pa nthawi inayake, ndi ndalama zoyambira ndi zotsiriza, ndi fayilo ya CSV.' },
  'section.analytics': { en: 'Counts and sums by connector over a range of dates, as charts.', ny: 'Chiwerengero ndi ndalama pa cholumikizira chilichonse pa masiku osankhidwa, mu zithunzi.' },

  // sign in
  'signIn.title': { en: 'Sign in', ny: 'Lowani' },
  'signIn.intro': { en: 'The merchant console: your balances, collections, payouts and statements.', ny: 'Tsamba la wamalonda: ndalama zanu, zolandiridwa, zotumizidwa ndi masitetimenti.' },
  'signIn.email': { en: 'E-mail address', ny: 'Imelo' },
  'signIn.password': { en: 'Password', ny: 'Mawu achinsinsi' },
  'signIn.submit': { en: 'Sign in', ny: 'Lowani' },
  'signIn.forgot': { en: 'Forgot your password?', ny: 'Mwaiwala mawu achinsinsi?' },
  'signIn.wrong': { en: 'The e-mail address or the password is wrong.', ny: 'Imelo kapena mawu achinsinsi sizolondola.' },
  'signIn.backoff': { en: 'Too many failed attempts. Try again in {seconds} seconds.', ny: 'Mwalephera kulowa kambirimbiri. Yesaninso pakadutsa masekondi {seconds}.' },
  'signIn.locked': {
    en: 'Too many failed attempts: signing in to this account is paused for {minutes} minutes. If the address belongs to a user, they have been sent an e-mail.',
    ny: 'Mwalephera kulowa kambirimbiri: kulowa mu akaunti iyi kwaimitsidwa kwa mphindi {minutes}. Ngati imelo iyi ndi ya wogwiritsa ntchito, watumiziridwa imelo.',
  },
  'signIn.expired': { en: 'Your session has ended. Please sign in again.', ny: 'Nthawi yanu yatha. Chonde lowaninso.' },
  'signIn.signedOut': { en: 'You have signed out.', ny: 'Mwatuluka.' },
  'signIn.passwordChanged': { en: 'Your password has been changed. Sign in with the new one.', ny: 'Mawu anu achinsinsi asinthidwa. Lowani ndi atsopanowo.' },
  'signIn.chooseTitle': { en: 'Choose a merchant', ny: 'Sankhani wamalonda' },
  'signIn.chooseIntro': { en: 'Your e-mail address is a user of several merchants. Which one do you want to work on?', ny: 'Imelo yanu ndi ya wogwiritsa ntchito wa amalonda angapo. Mukufuna kugwira ntchito ndi uti?' },
  'signIn.chooseAs': { en: 'as {role}', ny: 'ngati {role}' },
  'signIn.chooseExpired': { en: 'The choice took too long. Please sign in again.', ny: 'Kusankha kwatenga nthawi yaitali. Chonde lowaninso.' },

  // forgot password
  'forgot.title': { en: 'Forgot your password', ny: 'Mwaiwala mawu achinsinsi' },
  'forgot.intro': {
    en: 'Enter your e-mail address. If it belongs to a user, we will send a link to set a new password. It works once, for {minutes} minutes.',
    ny: 'Lembani imelo yanu. Ngati ndi ya wogwiritsa ntchito, tidzatumiza ulalo woti muike mawu achinsinsi atsopano. Umagwira ntchito kamodzi kokha, kwa mphindi {minutes}.',
  },
  'forgot.submit': { en: 'Send the link', ny: 'Tumizani ulalo' },
  'forgot.sentTitle': { en: 'Check your e-mail', ny: 'Onani imelo yanu' },
  'forgot.sent': {
    en: 'If {email} belongs to a user, a link to set a new password is on its way. It works once, for {minutes} minutes.',
    ny: 'Ngati {email} ndi ya wogwiritsa ntchito, ulalo woti muike mawu achinsinsi atsopano ukubwera. Umagwira ntchito kamodzi kokha, kwa mphindi {minutes}.',
  },
  'forgot.back': { en: 'Back to sign in', ny: 'Bwererani kuti mulowe' },

  // reset password
  'reset.title': { en: 'Set a new password', ny: 'Ikani mawu achinsinsi atsopano' },
  'reset.for': { en: 'For {email} at {merchant}', ny: 'Za {email} ku {merchant}' },
  'reset.password': { en: 'New password', ny: 'Mawu achinsinsi atsopano' },
  'reset.confirmation': { en: 'Repeat the password', ny: 'Lembaninso mawu achinsinsi' },
  'reset.rules': {
    en: '{min} to {max} characters, not a common password. A long phrase is easy to remember and hard to guess.',
    ny: 'Zilembo {min} mpaka {max}, osati mawu achinsinsi ofala. Chiganizo chachitali n\'chosavuta kukumbukira komanso chovuta kuchiganizira.',
  },
  'reset.submit': { en: 'Save the new password', ny: 'Sungani mawu achinsinsi atsopano' },
  'reset.invalidTitle': { en: 'This link is no longer valid', ny: 'Ulalowu sukugwiranso ntchito' },
  'reset.invalid': { en: 'The link has been used, has expired or never existed. Ask for a new one.', ny: 'Ulalowu unagwiritsidwa kale ntchito, nthawi yake yatha, kapena kulibe. Pemphani wina.' },
  'reset.askAgain': { en: 'Ask for a new link', ny: 'Pemphani ulalo watsopano' },

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

  // error pages
  'error.csrfTitle': { en: 'This form could not be accepted', ny: 'Fomu iyi sinavomerezedwe' },
  'error.csrf': {
    en: 'The form has expired or did not come from this console. Nothing was changed. Go back, reload the page and try again.',
    ny: 'Nthawi ya fomuyi yatha kapena sinachokere patsamba lino. Palibe chomwe chasinthidwa. Bwererani, tsegulaninso tsambalo ndipo yesaninso.',
  },
  'error.forbiddenTitle': { en: 'Not open to your role', ny: 'Sizololedwa pa udindo wanu' },
  'error.forbidden': { en: 'Your role ({role}) does not include this page.', ny: 'Udindo wanu ({role}) suphatikiza tsamba ili.' },
  'error.notFoundTitle': { en: 'Page not found', ny: 'Tsamba silinapezeke' },
  'error.notFound': { en: 'There is no such page in the console.', ny: 'Palibe tsamba lotere.' },
  'error.badRequestTitle': { en: 'The request could not be read', ny: 'Pempholi silinawerengedwe' },
  'error.badRequest': { en: 'Go back, reload the page and try again.', ny: 'Bwererani, tsegulaninso tsambalo ndipo yesaninso.' },
  'error.title': { en: 'Something went wrong', ny: 'Pali vuto' },
  'error.text': { en: 'The page could not be shown right now. Please try again shortly.', ny: 'Tsambali silinathe kuonetsedwa pakali pano. Chonde yesaninso posachedwa.' },
  'error.home': { en: 'Go to the console', ny: 'Pitani ku tsamba la wamalonda' },

  // e-mails
  'mail.greeting': { en: 'Hello {name},', ny: 'Moni {name},' },
  'mail.lockSubject': { en: 'Signing in to {merchant} is paused', ny: 'Kulowa ku {merchant} kwaimitsidwa kaye' },
  'mail.lockText': {
    en: 'Someone entered a wrong password {failures} times for {email} at the OneKhusa merchant console (from address {ip}). Signing in is paused until {until}.',
    ny: 'Winawake walemba mawu achinsinsi olakwika kokwana {failures} a {email} patsamba la wamalonda la OneKhusa (kuchokera ku adilesi {ip}). Kulowa kwaimitsidwa mpaka {until}.',
  },
  'mail.lockAdvice': {
    en: 'If it was you, wait and try again, or set a new password with "Forgot your password?". If it was not you, your password held: tell your administrator.',
    ny: 'Ngati ndinu, dikirani ndipo yesaninso, kapena ikani mawu achinsinsi atsopano kudzera "Mwaiwala mawu achinsinsi?". Ngati si inu, mawu anu achinsinsi sanadziwike: uzani woyang\'anira wanu.',
  },
  'mail.resetSubject': { en: 'Set a new password for {merchant}', ny: 'Ikani mawu achinsinsi atsopano a {merchant}' },
  'mail.resetIntro': { en: 'Someone asked to set a new password for {email} at {merchant} on OneKhusa. Use this link:', ny: 'Winawake wapempha kuika mawu achinsinsi atsopano a {email} ku {merchant} pa OneKhusa. Gwiritsani ntchito ulalo uwu:' },
  'mail.resetAction': { en: 'Set a new password', ny: 'Ikani mawu achinsinsi atsopano' },
  'mail.resetExpiry': { en: 'The link works once and expires on {expiry}.', ny: 'Ulalowu umagwira ntchito kamodzi kokha ndipo utha pa {expiry}.' },
  'mail.resetIgnore': { en: 'If you did not ask for it, ignore this e-mail: your password stays as it is.', ny: 'Ngati simunapemphe, musaiyang\'ane imelo iyi: mawu anu achinsinsi sasintha.' },
} satisfies Record<string, Entry>;

export type ConsoleMessageKey = keyof typeof MESSAGES;

/** A role's name in `lang`: from this table by its code, else as stored. */
export function roleName(lang: Lang, roleCode: string, storedName: string): string {
  const key = `role.${roleCode}`;
  return key in MESSAGES ? ct(lang, key as ConsoleMessageKey) : storedName;
}

/** The console's text `key` in `lang`, with {name} placeholders filled from `params`. */
export function ct(lang: Lang, key: ConsoleMessageKey, params: Params = {}): string {
  const template = MESSAGES[key][lang] ?? MESSAGES[key].en;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => (name in params ? String(params[name]) : `{${name}}`));
}
