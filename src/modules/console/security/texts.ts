// The security area's texts, in English and Chichewa (kit/i18n.ts joins them to the console's own).
import { areaTexts, type Entry } from '../kit/i18n.ts';

export const SECURITY_MESSAGES = {
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
  // No mail server (kit/mail.ts): the lock's e-mail is held, not sent; the same words for any address.
  'signIn.lockedHeld': {
    en: 'Too many failed attempts: signing in to this account is paused for {minutes} minutes. If the address belongs to a user, an e-mail about it was written for them, but it was not sent: no mail server is configured.',
    ny: 'Mwalephera kulowa kambirimbiri: kulowa mu akaunti iyi kwaimitsidwa kwa mphindi {minutes}. Ngati imelo iyi ndi ya wogwiritsa ntchito, imelo yokhudza izi yalembedwa, koma sinatumizidwe: palibe seva ya imelo yokonzedwa.',
  },
  'signIn.expired': { en: 'Your session has ended. Please sign in again.', ny: 'Nthawi yanu yatha. Chonde lowaninso.' },
  'signIn.signedOut': { en: 'You have signed out.', ny: 'Mwatuluka.' },
  'signIn.passwordChanged': { en: 'Your password has been changed. Sign in with the new one.', ny: 'Mawu anu achinsinsi asinthidwa. Lowani ndi atsopanowo.' },
  'signIn.chooseTitle': { en: 'Choose a merchant', ny: 'Sankhani wamalonda' },
  'signIn.chooseIntro': { en: 'Your e-mail address is a user of several merchants. Which one do you want to work on?', ny: 'Imelo yanu ndi ya wogwiritsa ntchito wa amalonda angapo. Mukufuna kugwira ntchito ndi uti?' },
  'signIn.chooseAs': { en: 'as {role}', ny: 'ngati {role}' },
  'security.title': { en: 'Security', ny: 'Chitetezo' },
  'security.twoFactor': { en: 'Two-factor sign-in', ny: 'Kulowa ndi njira ziwiri' },
  'security.required': {
    en: 'Your role approves payments or manages this merchant: set up two-factor sign-in before you continue.',
    ny: 'Udindo wanu umavomereza malipiro kapena umayang\'anira wamalondayu: konzani kulowa ndi njira ziwiri musanapitirize.',
  },
  'security.on': { en: 'On', ny: 'Yayatsidwa' },
  'security.onText': { en: 'Signing in asks for a code from your authenticator app. Recovery codes left: {left}.', ny: 'Kulowa kumafunsa nambala kuchokera ku pulogalamu yanu yotsimikizira. Nambala zobwezera zotsala: {left}.' },
  'security.off': { en: 'Off', ny: 'Yazimitsidwa' },
  'security.offText': { en: 'Signing in asks only for your password. An authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, …) makes a stolen password useless.', ny: 'Kulowa kumafunsa mawu achinsinsi okha. Pulogalamu yotsimikizira pa foni yanu (Google Authenticator, Microsoft Authenticator, 1Password, …) imapangitsa mawu achinsinsi obedwa kukhala opanda ntchito.' },
  'security.begin': { en: 'Set up an authenticator', ny: 'Konzani pulogalamu yotsimikizira' },
  'security.remove': { en: 'Turn off two-factor sign-in', ny: 'Zimitsani kulowa ndi njira ziwiri' },
  'security.removeHint': { en: 'To turn it off, enter a current code or a recovery code.', ny: 'Kuti muzimitse, lembani nambala yapano kapena nambala yobwezera.' },
  'security.removed': { en: 'Two-factor sign-in is off.', ny: 'Kulowa ndi njira ziwiri kwazimitsidwa.' },
  'security.decisionsTitle': { en: 'Payout decisions', ny: 'Zisankho za malipiro' },
  'security.decisionsOn': { en: 'Console only', ny: 'Patsamba lokha' },
  'security.decisionsOff': { en: 'API and console', ny: 'API ndi patsamba' },
  'security.decisionsOnText': {
    en: 'Batches and single payouts are reviewed, approved, rejected, cancelled and paid out only here, each decision bound to the signed-in user. The API still captures payouts, and refuses these decisions.',
    ny: 'Magulu ndi malipiro amodzi amawunikidwa, kuvomerezedwa, kukanidwa, kuletsedwa ndi kutumizidwa pano pokha, chisankho chilichonse chimamangidwa kwa wogwiritsa ntchito amene walowa. API imalowetsabe malipiro, koma imakana zisankhozi.',
  },
  'security.decisionsOffText': {
    en: 'The API may also take these decisions, naming the user in the request: anyone holding your API key can name any user. Turn this on when your team decides in the console.',
    ny: 'API ingathenso kupanga zisankhozi, potchula wogwiritsa ntchito mu pempho: aliyense wokhala ndi kiyi yanu ya API angathe kutchula wogwiritsa ntchito aliyense. Yatsani izi ngati gulu lanu limapanga zisankho patsamba.',
  },
  'security.decisionsTurnOn': { en: 'Take payout decisions in the console only', ny: 'Pangani zisankho za malipiro patsamba lokha' },
  'security.decisionsTurnOff': { en: 'Allow the API to take them again', ny: 'Lolani API kuzipanganso' },
  'security.enrolTitle': { en: 'Set up an authenticator', ny: 'Konzani pulogalamu yotsimikizira' },
  'security.scanTitle': { en: '1. Scan this code', ny: '1. Jambulani khodi iyi' },
  'security.scanText': { en: 'In your authenticator app, add an account and scan this QR code.', ny: 'Mu pulogalamu yanu yotsimikizira, onjezani akaunti ndipo jambulani khodi ya QR iyi.' },
  'security.qrLabel': { en: 'QR code for your authenticator app', ny: 'Khodi ya QR ya pulogalamu yanu yotsimikizira' },
  'security.typeText': { en: 'Cannot scan? Type this key instead (time-based, 6 digits):', ny: 'Simungathe kujambula? Lembani kiyi iyi m\'malo mwake (yotengera nthawi, manambala 6):' },
  'security.proveTitle': { en: '2. Enter the code it shows', ny: '2. Lembani nambala yomwe ikuonetsa' },
  'security.proveHint': { en: 'Six digits from the app, to prove it is set up.', ny: 'Manambala asanu ndi limodzi kuchokera ku pulogalamuyo, kutsimikizira kuti yakonzedwa.' },
  'security.confirm': { en: 'Turn on', ny: 'Yatsani' },
  'security.wrongCode': { en: 'That code is not right. Check the time on your phone and try the next code.', ny: 'Nambala imeneyo si yolondola. Onani nthawi pa foni yanu ndipo yesani nambala yotsatira.' },
  'security.noEnrolment': { en: 'Setting up took too long or was started elsewhere. Start again.', ny: 'Kukonza kwatenga nthawi yaitali kapena kunayambidwa kwina. Yambaninso.' },
  'security.alreadyOn': { en: 'Two-factor sign-in is already on. Turn it off first to use another authenticator.', ny: 'Kulowa ndi njira ziwiri kwayatsidwa kale. Zimitsani kaye kuti mugwiritse ntchito pulogalamu ina.' },
  'security.codesTitle': { en: 'Two-factor sign-in is on', ny: 'Kulowa ndi njira ziwiri kwayatsidwa' },
  'security.enrolled': { en: 'Your authenticator is set up. Other browsers signed in as you have been signed out.', ny: 'Pulogalamu yanu yotsimikizira yakonzedwa. Masakatuli ena amene munalowamo atulutsidwa.' },
  'security.codesHeading': { en: 'Your recovery codes', ny: 'Nambala zanu zobwezera' },
  'security.codesText': {
    en: 'Keep these somewhere safe, away from your phone. Each one signs you in once if you lose your authenticator. They are shown only now.',
    ny: 'Zisungeni pamalo otetezeka, kutali ndi foni yanu. Iliyonse imakulowetsani kamodzi ngati mwataya pulogalamu yanu yotsimikizira. Zikuonetsedwa pano pokha.',
  },
  'security.codesDone': { en: 'I have saved them', ny: 'Ndazisunga' },
  'signIn.codeTitle': { en: 'Enter your code', ny: 'Lembani nambala yanu' },
  'signIn.codeIntro': { en: 'Your account is protected by an authenticator app. Open it and enter the code it shows for OneKhusa.', ny: 'Akaunti yanu imatetezedwa ndi pulogalamu yotsimikizira. Itsegulani ndipo lembani nambala yomwe ikuonetsa ya OneKhusa.' },
  'signIn.code': { en: 'Code', ny: 'Nambala' },
  'signIn.codeHint': { en: 'Six digits, or one of your recovery codes if you do not have your phone.', ny: 'Manambala asanu ndi limodzi, kapena imodzi mwa nambala zanu zobwezera ngati mulibe foni yanu.' },
  'signIn.codeSubmit': { en: 'Continue', ny: 'Pitirizani' },
  'signIn.codeWrong': { en: 'That code is not right, or it was already used.', ny: 'Nambala imeneyo si yolondola, kapena idagwiritsidwa kale ntchito.' },
  'signIn.codeExpired': { en: 'Signing in took too long. Please sign in again.', ny: 'Kulowa kwatenga nthawi yaitali. Chonde lowaninso.' },
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
  // No mail server (kit/mail.ts): the same answer for every address, without claiming delivery.
  'forgot.heldTitle': { en: 'Your link was not e-mailed', ny: 'Ulalo wanu sunatumizidwe pa imelo' },
  'forgot.sentHeld': {
    en: 'If {email} belongs to a user, a link to set a new password was made, but not sent: no mail server is configured. In this sandbox, an administrator of your merchant account can read it in the console, under Sandbox tools › Outbox. It works once, for {minutes} minutes.',
    ny: 'Ngati {email} ndi ya wogwiritsa ntchito, ulalo woti muike mawu achinsinsi atsopano wapangidwa, koma sunatumizidwe: palibe seva ya imelo yokonzedwa. Mu sandbox iyi, woyang\'anira akaunti yanu ya wamalonda angauwerenge patsamba, pa Zida za sandbox › Bokosi la maimelo. Umagwira ntchito kamodzi kokha, kwa mphindi {minutes}.',
  },
  'forgot.sentHeldOperator': {
    en: 'If {email} belongs to a user, a link to set a new password was made, but not sent: no mail server is configured. The service’s operator can read it from the outbox (npm run cli -- emails list). It works once, for {minutes} minutes.',
    ny: 'Ngati {email} ndi ya wogwiritsa ntchito, ulalo woti muike mawu achinsinsi atsopano wapangidwa, koma sunatumizidwe: palibe seva ya imelo yokonzedwa. Woyang\'anira dongosolo angauwerenge (npm run cli -- emails list). Umagwira ntchito kamodzi kokha, kwa mphindi {minutes}.',
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

  // e-mails
  'mail.greeting': { en: 'Hello {name},', ny: 'Moni {name},' },
  'mail.lockSubject': { en: 'Signing in to {merchant} is paused', ny: 'Kulowa ku {merchant} kwaimitsidwa kaye' },
  'mail.lockText': {
    en: 'Someone entered a wrong password {failures} times for {email} at the OneKhusa merchant console (from address {ip}). Signing in is paused until {until}.',
    ny: 'Winawake walemba mawu achinsinsi olakwika kokwana {failures} a {email} patsamba la wamalonda la OneKhusa (kuchokera ku adilesi {ip}). Kulowa kwaimitsidwa mpaka {until}.',
  },
  'mail.codeLockText': {
    en: 'Someone entered the right password for {email} at the OneKhusa merchant console, then a wrong authenticator code {failures} times (from address {ip}). Signing in is paused until {until}.',
    ny: 'Winawake walemba mawu achinsinsi olondola a {email} patsamba la wamalonda la OneKhusa, kenako nambala yolakwika ya pulogalamu yotsimikizira kokwana {failures} (kuchokera ku adilesi {ip}). Kulowa kwaimitsidwa mpaka {until}.',
  },
  'mail.codeLockAdvice': {
    en: 'If it was not you, your password is known to someone else: set a new one now with "Forgot your password?" and tell your administrator.',
    ny: 'Ngati si inu, mawu anu achinsinsi akudziwika ndi munthu wina: ikani atsopano tsopano kudzera "Mwaiwala mawu achinsinsi?" ndipo uzani woyang\'anira wanu.',
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

/** This area's text `key` (or the kit's) in `lang`. */
export const ct = areaTexts('security', SECURITY_MESSAGES);
export type TextKey = Parameters<typeof ct>[1];
