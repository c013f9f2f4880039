// Which passwords a merchant user may not choose, beyond their length: the common ones. The list
// is zxcvbn's "passwords-common" dictionary (npm @zxcvbn-ts/language-common, src/passwords.json:
// about 49,000 passwords, most common first, compiled by the zxcvbn project from leaked password
// corpora), read from the installed package, so it works offline and is updated with the package.
//
// A password is refused when, compared case-insensitively, it is on the list, or is a listed
// password followed or preceded by digits and symbols only ("Password2026!", "123monkey123456"),
// a pattern every cracking tool tries first; or is one character repeated.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let common: Set<string> | undefined;

/** The list, read once on first use (about 0.5 MB). */
function commonPasswords(): Set<string> {
  if (!common) {
    const file = require.resolve('@zxcvbn-ts/language-common/src/passwords.json');
    const list = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (!Array.isArray(list) || list.length < 10_000) throw new Error(`${file} is not the expected list of common passwords`);
    common = new Set(list.map((p) => String(p).toLowerCase()));
  }
  return common;
}

/** Listed words shorter than this are not looked for inside a longer password ("a1" is no pattern). */
const MIN_WORD_LENGTH = 4;

export function isCommonPassword(password: string): boolean {
  const folded = password.normalize('NFKC').toLowerCase();
  if (/^(.)\1*$/su.test(folded)) return true;
  const list = commonPasswords();
  if (list.has(folded)) return true;
  const core = folded.replace(/^[\d\W_]+/u, '').replace(/[\d\W_]+$/u, '');
  return core.length >= MIN_WORD_LENGTH && core !== folded && list.has(core);
}
