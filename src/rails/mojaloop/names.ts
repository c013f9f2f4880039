// The beneficiary's name from the lookup, compared with the payout's. Institutions write names
// their own way (order, case, accents, a middle name or not), so the comparison is by words: the
// same words in any order, or all the words of the shorter name within the longer one when that
// is at least two words ("Tiyamike Phiri" and "PHIRI Tiyamike Grace" agree; "T. Phiri" does not).
import type { PartyBody } from './types.ts';

function words(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

export function namesMatch(a: string, b: string): boolean {
  const [shorter, longer] = [words(a), words(b)].sort((x, y) => x.length - y.length);
  if (shorter.length === 0) return false;
  const rest = [...longer];
  for (const word of shorter) {
    const at = rest.indexOf(word);
    if (at < 0) return false;
    rest.splice(at, 1);
  }
  return rest.length === 0 || shorter.length >= 2;
}

/** The name a lookup answered: `name`, else the complex name's parts; null when it gave none. */
export function partyName(party: PartyBody['party']): string | null {
  if (party.name && party.name.trim()) return party.name.trim().slice(0, 200);
  const complex = party.personalInfo?.complexName;
  const joined = [complex?.firstName, complex?.middleName, complex?.lastName].filter((p) => p && p.trim()).join(' ');
  return joined ? joined.slice(0, 200) : null;
}
