// The console's texts (src/modules/console/kit/i18n.ts and messages/*.ts): every text in every
// language, no key in two tables (a later table would silently replace the earlier text), each
// area's keys under its own prefix, and the same placeholders in every language.
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../src/http/i18n.ts';
import { MESSAGE_TABLES } from '../src/modules/console/kit/i18n.ts';

const PREFIXES: Record<string, string> = {
  payouts: 'payoutActions.',
  developers: 'developers.',
  team: 'team.',
  settlement: 'settlement.',
  gettingPaid: 'getPaid.',
  sandbox: 'sandboxTools.',
};

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('console messages', () => {
  const tables = Object.entries(MESSAGE_TABLES) as Array<[string, Record<string, Record<string, string>>]>;

  it('defines each key once across the tables, each area under its prefix', () => {
    const seen = new Map<string, string>();
    for (const [table, messages] of tables) {
      for (const key of Object.keys(messages)) {
        expect(seen.get(key), `${key} is in ${seen.get(key)} and ${table}`).toBeUndefined();
        seen.set(key, table);
        if (PREFIXES[table]) expect(key.startsWith(PREFIXES[table]) || key.startsWith('notice.'), `${table}: ${key}`).toBe(true);
      }
    }
  });

  it('has every text in every language, with the same placeholders', () => {
    for (const [, messages] of tables) {
      for (const [key, entry] of Object.entries(messages)) {
        for (const lang of LANGUAGES) expect(entry[lang]?.trim(), `${key} ${lang}`).toBeTruthy();
        for (const lang of LANGUAGES) expect(placeholders(entry[lang]), `${key} ${lang}`).toEqual(placeholders(entry.en));
      }
    }
  });
});
