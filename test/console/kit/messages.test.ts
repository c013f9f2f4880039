// The console's texts (the kit's in src/modules/console/kit/i18n.ts, each area's in its texts.ts):
// every text in every language, no key in two tables (refused when an area loads), each area's
// keys under its own prefixes, and the same placeholders in every language.
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../../src/http/i18n.ts';
import '../../../src/modules/console/index.ts';
import { areaTexts, textTables } from '../../../src/modules/console/kit/i18n.ts';

const PREFIXES: Record<string, readonly string[]> = {
  home: ['home.'],
  collections: ['collection.', 'collections.'],
  payouts: ['payoutActions.', 'payouts.'],
  'get-paid': ['getPaid.'],
  statements: ['statements.'],
  analytics: ['analytics.'],
  developers: ['developers.'],
  team: ['team.'],
  settlement: ['settlement.'],
  security: ['security.', 'signIn.', 'mail.', 'reset.', 'forgot.'],
  sandbox: ['sandboxTools.'],
};

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('console messages', () => {
  const tables = [...textTables()] as Array<[string, Record<string, Record<string, string>>]>;

  it('joins the kit\'s table and every area\'s, and refuses a key that is already defined', () => {
    expect(tables.map(([owner]) => owner).sort()).toEqual(['kit', ...Object.keys(PREFIXES)].sort());
    expect(() => areaTexts('another', { 'layout.skip': { en: 'x', ny: 'x' } })).toThrow(/layout.skip/);
  });

  it('defines each key once across the tables, each area under its prefix', () => {
    const seen = new Map<string, string>();
    for (const [table, messages] of tables) {
      for (const key of Object.keys(messages)) {
        expect(seen.get(key), `${key} is in ${seen.get(key)} and ${table}`).toBeUndefined();
        seen.set(key, table);
        if (PREFIXES[table]) expect([...PREFIXES[table], 'notice.'].some((prefix) => key.startsWith(prefix)), `${table}: ${key}`).toBe(true);
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
