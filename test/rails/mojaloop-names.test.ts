// The beneficiary name check of payouts over Mojaloop (src/rails/mojaloop/names.ts): the name the
// beneficiary's DFSP holds against the payout's, by words, and the name a lookup's party gives.
import { describe, expect, it } from 'vitest';
import { namesMatch, partyName } from '../../src/rails/mojaloop/names.ts';

describe('namesMatch', () => {
  it.each([
    ['Tiyamike Phiri', 'Tiyamike Phiri'],
    ['Tiyamike Phiri', 'PHIRI, Tiyamike'],
    ['Tiyamike Phiri', 'Tiyamike Grace Phiri'],
    ['Chisomo Bánda', 'chisomo banda'],
    ['Banda', 'BANDA'],
  ])('%s and %s agree', (a, b) => {
    expect(namesMatch(a, b)).toBe(true);
    expect(namesMatch(b, a)).toBe(true);
  });

  it.each([
    ['Tiyamike Phiri', 'Grace Mwale'],
    ['Tiyamike Phiri', 'T. Phiri'],
    ['Phiri', 'Tiyamike Phiri'],
    ['Tiyamike Phiri', 'Tiya Phiri Banda'],
    ['', 'Tiyamike Phiri'],
    ['Chisomo Chisomo', 'Chisomo Banda'],
  ])('%s and %s differ', (a, b) => {
    expect(namesMatch(a, b)).toBe(false);
  });
});

describe('partyName', () => {
  it('takes name, else the complex name joined, else none', () => {
    expect(partyName({ partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1' }, name: ' Grace Mwale ' })).toBe('Grace Mwale');
    expect(partyName({ partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1' }, personalInfo: { complexName: { firstName: 'Grace', lastName: 'Mwale' } } })).toBe('Grace Mwale');
    expect(partyName({ partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1' } })).toBeNull();
  });
});
