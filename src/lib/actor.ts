// Who acted: the e-mail addresses in actor fields (capturedBy, actionedBy, rejectedBy, …) and the
// addresses of merchant users, compared in one canonical form, so that a look-alike spelling of
// someone's address is that someone (four eyes), and an address built to look like another one
// without being the same mailbox is refused where it comes in (400 E900, the `x-email` keyword in
// src/http/validation.ts, on every Email() field).
//
// canonicalActor: Unicode NFKC, lower case, invisible (default-ignorable) characters dropped, the
// domain without its trailing dot(s) and in its ASCII (IDNA) form, a quoted local part unquoted,
// and a sub-address (+tag) dropped: `"Boss+1"@X.com.`, `ｂoss@x.com` and `boss@x.com` are one.
// actorProblem: why an address is refused: it holds an invisible, format, control, private-use
// or unassigned code point (U+200B, U+2060, U+00AD, any \p{Cf}, …), or its local part mixes
// scripts (Latin `o` beside Greek `ο`); Common and Inherited characters (digits, punctuation,
// combining marks) belong to every script. Han may go with Hiragana and Katakana, with Bopomofo
// or with Hangul (how Japanese, Chinese and Korean are written; UTS #39's restriction levels).
import { domainToASCII } from 'node:url';

/** Characters that show nothing or change how others show, and code points with no character. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]/u;
const IGNORABLE_ALL = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** Every Unicode script but Common and Inherited; names this Node's RegExp does not know are skipped. */
const SCRIPT_NAMES = `Latin Greek Cyrillic Armenian Georgian Cherokee Coptic Glagolitic Hebrew Arabic Syriac Thaana Nko
  Devanagari Bengali Gurmukhi Gujarati Oriya Tamil Telugu Kannada Malayalam Sinhala Thai Lao Tibetan Myanmar Khmer Mongolian
  Han Hiragana Katakana Bopomofo Hangul Yi Ethiopic Canadian_Aboriginal Ogham Runic Tagalog Hanunoo Buhid Tagbanwa Limbu Tai_Le
  Linear_B Ugaritic Shavian Osmanya Cypriot Braille Buginese New_Tai_Lue Tifinagh Syloti_Nagri Old_Persian Kharoshthi Balinese
  Cuneiform Phoenician Phags_Pa Sundanese Lepcha Ol_Chiki Vai Saurashtra Kayah_Li Rejang Lycian Carian Lydian Cham Tai_Tham
  Tai_Viet Avestan Egyptian_Hieroglyphs Samaritan Lisu Bamum Javanese Meetei_Mayek Imperial_Aramaic Old_South_Arabian
  Inscriptional_Parthian Inscriptional_Pahlavi Old_Turkic Kaithi Batak Brahmi Mandaic Chakma Meroitic_Cursive
  Meroitic_Hieroglyphs Miao Sharada Sora_Sompeng Takri Caucasian_Albanian Bassa_Vah Duployan Elbasan Grantha Pahawh_Hmong
  Khojki Linear_A Mahajani Manichaean Mende_Kikakui Modi Mro Old_North_Arabian Nabataean Palmyrene Pau_Cin_Hau Old_Permic
  Psalter_Pahlavi Siddham Khudawadi Tirhuta Warang_Citi Ahom Anatolian_Hieroglyphs Hatran Multani Old_Hungarian SignWriting
  Adlam Bhaiksuki Marchen Newa Osage Tangut Masaram_Gondi Nushu Soyombo Zanabazar_Square Dogra Gunjala_Gondi Makasar
  Medefaidrin Hanifi_Rohingya Sogdian Old_Sogdian Elymaic Nandinagari Nyiakeng_Puachue_Hmong Wancho Chorasmian Dives_Akuru
  Khitan_Small_Script Yezidi Cypro_Minoan Old_Uyghur Tangsa Toto Vithkuqi Kawi Nag_Mundari Garay Gurung_Khema Kirat_Rai
  Ol_Onal Sunuwar Todhri Tulu_Tigalari Old_Italic Gothic Deseret`
  .split(/\s+/)
  .flatMap((name) => {
    try {
      return [{ name, test: new RegExp(`^\\p{Script=${name}}$`, 'u') }];
    } catch {
      return [];
    }
  });

const NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
/** The usual case, decided without looking up scripts: Latin, digits and punctuation only. */
const LATIN_ONLY = /^[\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]*$/u;

/** Sets of scripts one local part may combine: one script alone always, these together too. */
const SCRIPT_SETS = [
  ['Han', 'Hiragana', 'Katakana'],
  ['Han', 'Bopomofo'],
  ['Han', 'Hangul'],
];

function scriptOf(char: string): string {
  if (NEUTRAL.test(char)) return '';
  return SCRIPT_NAMES.find((s) => s.test.test(char))?.name ?? 'Unknown';
}

/** The scripts (other than Common and Inherited) that `text` uses. */
export function scriptsOf(text: string): Set<string> {
  const scripts = new Set<string>();
  if (LATIN_ONLY.test(text)) {
    if (/\p{Script=Latin}/u.test(text)) scripts.add('Latin');
    return scripts;
  }
  for (const char of text) {
    const script = scriptOf(char);
    if (script) scripts.add(script);
  }
  return scripts;
}

function mixesScripts(local: string): boolean {
  const scripts = scriptsOf(local);
  if (scripts.size <= 1) return false;
  return !SCRIPT_SETS.some((set) => [...scripts].every((s) => set.includes(s)));
}

export type ActorProblem = 'invisible' | 'mixedScripts';

/** Why `email` may not name a person (see the top of this file), or undefined when it may. */
export function actorProblem(email: string): ActorProblem | undefined {
  const folded = email.normalize('NFKC');
  if (INVISIBLE.test(email) || INVISIBLE.test(folded)) return 'invisible';
  const at = folded.lastIndexOf('@');
  if (mixesScripts(at < 0 ? folded : folded.slice(0, at))) return 'mixedScripts';
  return undefined;
}

function canonicalStep(text: string): string {
  const folded = text.replace(IGNORABLE_ALL, '').normalize('NFKC').toLowerCase();
  const at = folded.lastIndexOf('@');
  if (at < 0) return folded;
  let local = folded.slice(0, at);
  let domain = folded.slice(at + 1).replace(/\.+$/, '');
  domain = domainToASCII(domain) || domain;
  if (local.length >= 2 && local.startsWith('"') && local.endsWith('"')) local = local.slice(1, -1).replace(/\\(.)/gsu, '$1');
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  return `${local}@${domain}`;
}

/**
 * The one form in which actors are compared (see the top of this file). Never throws: stored
 * values from before the refusal existed are compared in this form too. Idempotent.
 */
export function canonicalActor(email: string): string {
  let text = email;
  // Lower case can undo NFKC and NFKC lower case (ᴬ → A), unquoting can expose a +tag or more
  // quotes: repeat until nothing changes. After the first pass a step only removes characters
  // (the cap is never reached by a string of realistic length).
  for (let pass = 0; pass < 1000; pass++) {
    const next = canonicalStep(text);
    if (next === text) break;
    text = next;
  }
  return text;
}

/** Whether two actor fields name the same person. */
export function sameActor(a: string, b: string): boolean {
  return canonicalActor(a) === canonicalActor(b);
}
