// The FSPIOP protocol primitives of the Mojaloop rail (src/rails/mojaloop/: headers, amount, ids,
// ilp, jws, errors, schemas). The fixtures marked "reference" were produced by Mojaloop's
// sdk-standard-components 19.16.4 (what the Testing Toolkit 18.13 runs): an ILPv1 and an ILPv4
// packet from its ilpFactory, a request signed by its JwsSigner. Where that package is installed
// (SDK_STANDARD_COMPONENTS, by default the Testing Toolkit's copy in /tmp/ttk-try), the live
// cross-checks run it too: its signer against our verifier, our signer against its validator,
// its packet builder against ours.
import { existsSync } from 'node:fs';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT_PATTERN, currencyExponent, fromFspiopAmount, moneyMinor, toFspiopAmount, toMoney } from '../../src/rails/mojaloop/amount.ts';
import { errorInformation, errorName, FSPIOP_ERRORS, genericCode, httpStatusFor, payoutResponseFor } from '../../src/rails/mojaloop/errors.ts';
import { accept, acceptedVersion, contentType, fspiopUri, headerValue, httpDate, outboundHeaders, parseContentType } from '../../src/rails/mojaloop/headers.ts';
import { CORRELATION_ID_PATTERN, derivedId, isCorrelationId, randomCorrelationId, uuidV5 } from '../../src/rails/mojaloop/ids.ts';
import {
  buildIlpPacket,
  conditionFor,
  decodeIlpPacket,
  fulfilmentFor,
  fulfilmentMatches,
  ilpAddress,
  ilpAmount,
  IlpPacketError,
  type IlpTransaction,
} from '../../src/rails/mojaloop/ilp.ts';
import { signatureHeaders, signRequest, verifyRequest, type SignInput } from '../../src/rails/mojaloop/jws.ts';
import { validate, type BodyKind } from '../../src/rails/mojaloop/schemas.ts';

// Mojaloop's reference implementation comes with the Testing Toolkit (test/ttk, installed by the
// global setup before any test file runs).
const REFERENCE_DIR = process.env.SDK_STANDARD_COMPONENTS ?? fileURLToPath(new URL('../ttk/node_modules/@mojaloop/sdk-standard-components', import.meta.url));
const hasReference = existsSync(`${REFERENCE_DIR}/src/lib/jws/index.js`);

/** The reference's modules, loaded from its own folder so that its dependencies resolve there. */
function reference(): { jws: { signer: new (c: object) => ReferenceSigner; validator: new (c: object) => ReferenceValidator }; ilp: ReferenceIlp } {
  const require = createRequire(`${REFERENCE_DIR}/package.json`);
  return { jws: require('./src/lib/jws'), ilp: require('./src/lib/ilp') };
}
interface ReferenceSigner {
  sign(request: { method: string; uri: string; headers: Record<string, string>; body: unknown }): void;
}
interface ReferenceValidator {
  validate(request: { headers: Record<string, string>; body: unknown }): true;
}
interface ReferenceIlp {
  ilpFactory(version: string, options: object): { getResponseIlp(tx: object): { ilpPacket: string; condition: string; fulfilment: string } };
}
const silent = { child: () => silent, debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, isDebugEnabled: false };

// The Transaction of the reference packets, in the key order the reference's DTO writes.
const TX: IlpTransaction = {
  quoteId: '7c23e80c-d078-4077-8263-2c047876fcf6',
  transactionId: '85feac2f-39b2-491b-817e-4a03203d4f14',
  transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'BUSINESS' },
  payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '265991234567', fspId: 'payeefsp' }, name: 'Chikondi Banda' },
  payer: { partyIdInfo: { partyIdType: 'ACCOUNT_ID', partyIdentifier: 'PAYOUTS', fspId: 'onekhusa' } },
  expiration: '2030-01-02T03:04:05.678Z',
  amount: { currency: 'MWK', amount: '123.45' },
  note: 'payout P-0001',
};
const SECRET = 'fixture-secret-for-tests-only';

/** Reference: IlpV1.getResponseIlp(TX) with SECRET (an ILPv1 payment packet, what FSPIOP 1.x carries). */
const REFERENCE_V1 = {
  ilpPacket:
    'AYIC6wAAAAAAADA5HmcucGF5ZWVmc3AubXNpc2RuLjI2NTk5MTIzNDU2N4ICwGV5SnhkVzkwWlVsa0lqb2lOMk15TTJVNE1HTXRaREEzT0MwME1EYzNMVGd5TmpNdE1tTXdORGM0TnpabVkyWTJJaXdpZEhKaGJuTmhZM1JwYjI1SlpDSTZJamcxWm1WaFl6Sm1MVE01WWpJdE5Ea3hZaTA0TVRkbExUUmhNRE15TUROa05HWXhOQ0lzSW5SeVlXNXpZV04wYVc5dVZIbHdaU0k2ZXlKelkyVnVZWEpwYnlJNklsUlNRVTVUUmtWU0lpd2lhVzVwZEdsaGRHOXlJam9pVUVGWlJWSWlMQ0pwYm1sMGFXRjBiM0pVZVhCbElqb2lRbFZUU1U1RlUxTWlmU3dpY0dGNVpXVWlPbnNpY0dGeWRIbEpaRWx1Wm04aU9uc2ljR0Z5ZEhsSlpGUjVjR1VpT2lKTlUwbFRSRTRpTENKd1lYSjBlVWxrWlc1MGFXWnBaWElpT2lJeU5qVTVPVEV5TXpRMU5qY2lMQ0ptYzNCSlpDSTZJbkJoZVdWbFpuTndJbjBzSW01aGJXVWlPaUpEYUdscmIyNWthU0JDWVc1a1lTSjlMQ0p3WVhsbGNpSTZleUp3WVhKMGVVbGtTVzVtYnlJNmV5SndZWEowZVVsa1ZIbHdaU0k2SWtGRFEwOVZUbFJmU1VRaUxDSndZWEowZVVsa1pXNTBhV1pwWlhJaU9pSlFRVmxQVlZSVElpd2labk53U1dRaU9pSnZibVZyYUhWellTSjlmU3dpWlhod2FYSmhkR2x2YmlJNklqSXdNekF0TURFdE1ESlVNRE02TURRNk1EVXVOamM0V2lJc0ltRnRiM1Z1ZENJNmV5SmpkWEp5Wlc1amVTSTZJazFYU3lJc0ltRnRiM1Z1ZENJNklqRXlNeTQwTlNKOUxDSnViM1JsSWpvaWNHRjViM1YwSUZBdE1EQXdNU0o5AA',
  condition: 'VbkGtg1UKKuW05wUGlshSnHgvjonLKJPUxvY8irmstw',
  fulfilment: '2EgutFfdAdUYtr7C8UFOOb_S49waPklUpsal3_KGyDg',
  // IlpV1.decodeIlpPacket's amount and account.
  amount: '12345',
  account: 'g.payeefsp.msisdn.265991234567',
};

/** Reference: IlpV4.getResponseIlp(TX) with SECRET (an ILPv4 prepare packet, what FSPIOP 2.0 and ISO 20022 carry). */
const REFERENCE_V4 = {
  ilpPacket:
    'DIIDBwAAAAAAADA5MjAzMDAxMDIwMzA0MDU2Nzi6ee9F2A4hVuQDuLazo9_PvSKeMFd31KEIiwynk_2c7wpnLm1vamFsb29wggLAZXlKeGRXOTBaVWxrSWpvaU4yTXlNMlU0TUdNdFpEQTNPQzAwTURjM0xUZ3lOak10TW1Nd05EYzROelptWTJZMklpd2lkSEpoYm5OaFkzUnBiMjVKWkNJNklqZzFabVZoWXpKbUxUTTVZakl0TkRreFlpMDRNVGRsTFRSaE1ETXlNRE5rTkdZeE5DSXNJblJ5WVc1ellXTjBhVzl1Vkhsd1pTSTZleUp6WTJWdVlYSnBieUk2SWxSU1FVNVRSa1ZTSWl3aWFXNXBkR2xoZEc5eUlqb2lVRUZaUlZJaUxDSnBibWwwYVdGMGIzSlVlWEJsSWpvaVFsVlRTVTVGVTFNaWZTd2ljR0Y1WldVaU9uc2ljR0Z5ZEhsSlpFbHVabThpT25zaWNHRnlkSGxKWkZSNWNHVWlPaUpOVTBsVFJFNGlMQ0p3WVhKMGVVbGtaVzUwYVdacFpYSWlPaUl5TmpVNU9URXlNelExTmpjaUxDSm1jM0JKWkNJNkluQmhlV1ZsWm5Od0luMHNJbTVoYldVaU9pSkRhR2xyYjI1a2FTQkNZVzVrWVNKOUxDSndZWGxsY2lJNmV5SndZWEowZVVsa1NXNW1ieUk2ZXlKd1lYSjBlVWxrVkhsd1pTSTZJa0ZEUTA5VlRsUmZTVVFpTENKd1lYSjBlVWxrWlc1MGFXWnBaWElpT2lKUVFWbFBWVlJUSWl3aVpuTndTV1FpT2lKdmJtVnJhSFZ6WVNKOWZTd2laWGh3YVhKaGRHbHZiaUk2SWpJd016QXRNREV0TURKVU1ETTZNRFE2TURVdU5qYzRXaUlzSW1GdGIzVnVkQ0k2ZXlKamRYSnlaVzVqZVNJNklrMVhTeUlzSW1GdGIzVnVkQ0k2SWpFeU15NDBOU0o5TENKdWIzUmxJam9pY0dGNWIzVjBJRkF0TURBd01TSjk',
  condition: 'unnvRdgOIVbkA7i2s6Pfz70injBXd9ShCIsMp5P9nO8',
  fulfilment: 'ZOXxXVvGvskd-TnX97Yq_zFzll2lL9B659ToMOhMJ-c',
  amount: '12345',
  destination: 'g.mojaloop',
  expiresAt: '2030-01-02T03:04:05.678Z',
};

/** The ilpPacket example of the fspiop_1.1 definition: an ILPv1 packet whose data is PSK text, not a Transaction. */
const SPEC_EXAMPLE_PACKET =
  'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4wCk5vbmNlOiB1SXlweUYzY3pYSXBFdzVVc05TYWh3CkVuY3J5cHRpb246IG5vbmUKUGF5bWVudC1JZDogMTMyMzZhM2ItOGZhOC00MTYzLTg0NDctNGMzZWQzZGE5OGE3CgpDb250ZW50LUxlbmd0aDogMTM1CkNvbnRlbnQtVHlwZTogYXBwbGljYXRpb24vanNvbgpTZW5kZXItSWRlbnRpZmllcjogOTI4MDYzOTEKCiJ7XCJmZWVcIjowLFwidHJhbnNmZXJDb2RlXCI6XCJpbnZvaWNlXCIsXCJkZWJpdE5hbWVcIjpcImFsaWNlIGNvb3BlclwiLFwiY3JlZGl0TmFtZVwiOlwibWVyIGNoYW50XCIsXCJkZWJpdElkZW50aWZpZXJcIjpcIjkyODA2MzkxXCJ9IgA';

/** Reference: JwsSigner.sign() of a PUT /quotes callback from payeefsp (its key pair made for this fixture; the public half here). */
const REFERENCE_SIGNED = {
  publicKeyPem: [
    '-----BEGIN PUBLIC KEY-----',
    'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEApfPUtsMaTrjcZV2yeWlM',
    'XSagW2ulFwJa+GSvkT/9W1GL72oM1tc4baYiwpd3Yh1iO05/u1Bs4fCvesBDsQvU',
    'dPLvVHwXEnZrjz81PKCra8X/BnYT/8XLd5CLtjdEVELm88A0QSV7QQc8m5MlkCVp',
    'TscZ9CU0bkTsJFrdW31uIzqmoixbKzF+zoEI2yzL8iFYdkkqxwHJEn3fCl2xANTW',
    'cvuQL0xUn1XgZKSVvu4jid5qIIBdN7jS2pS3EWI9veysEvanCS7Wv8g6EytbXsSy',
    'b9T/aHaeX5lE2pNeMVGWD4xp7QCSwgbqEW9Y3b7EdbnOzko7fOtWY/4v7/Y8ZAkI',
    'HwIDAQAB',
    '-----END PUBLIC KEY-----',
  ].join('\n'),
  uri: '/fspiop/quotes/7c23e80c-d078-4077-8263-2c047876fcf6',
  headers: {
    'fspiop-source': 'payeefsp',
    'fspiop-destination': 'onekhusa',
    date: 'Thu, 02 Jan 2030 03:00:00 GMT',
    'content-type': 'application/vnd.interoperability.quotes+json;version=1.0',
    'fspiop-http-method': 'PUT',
    'fspiop-uri': '/quotes/7c23e80c-d078-4077-8263-2c047876fcf6',
    'fspiop-signature': '{"signature":"Iy0GN6iL-ZVTJK4TxPvf_Qsd14ylBdrtiqNTvyf8ogPkiR6x-ufMgx6ylbKWibyPivRsZNZMEfQppkTKyBYz2HnXqukOETWYSarQ9_zc3o-exodYo6JibZWT3XFC0SO5Cv9xG_bq4X0C-IId35DWd6wBQmWZkkYpaOa2YmB3eper4PPFTLcLz8KwFTFRwvzoyyHkw91mN21p1zC5iV8HWL-y7jWQC_5QO0vENOdJrnNCMaXHtqm8d3dnhlvwFXNe3Av4mCJNBkq-j0AjK_Xurv01UEOvsbj4vb4-Oh0_KcqTl0asjGa-U9MJ1NQ6bJ_KkXJNQocDe6KL6xjGNmKIog","protectedHeader":"eyJhbGciOiJSUzI1NiIsIkZTUElPUC1VUkkiOiIvcXVvdGVzLzdjMjNlODBjLWQwNzgtNDA3Ny04MjYzLTJjMDQ3ODc2ZmNmNiIsIkZTUElPUC1IVFRQLU1ldGhvZCI6IlBVVCIsIkZTUElPUC1Tb3VyY2UiOiJwYXllZWZzcCIsIkZTUElPUC1EZXN0aW5hdGlvbiI6Im9uZWtodXNhIiwiRGF0ZSI6IlRodSwgMDIgSmFuIDIwMzAgMDM6MDA6MDAgR01UIn0"}',
  },
  rawBody: '{"transferAmount":{"currency":"MWK","amount":"123.45"},"expiration":"2030-01-02T03:04:05.678Z","ilpPacket":"AYIC6w","condition":"VbkGtg1UKKuW05wUGlshSnHgvjonLKJPUxvY8irmstw"}',
};
describe('headers', () => {
  it('names each resource and version in Content-Type and Accept', () => {
    expect(contentType('quotes')).toBe('application/vnd.interoperability.quotes+json;version=1.0');
    expect(contentType('bulkTransfers', '1.1')).toBe('application/vnd.interoperability.bulkTransfers+json;version=1.1');
    expect(accept('parties')).toBe('application/vnd.interoperability.parties+json;version=1');
    expect(accept('transfers', '1.1')).toBe('application/vnd.interoperability.transfers+json;version=1.1');
  });

  it('builds a request with Accept, an RFC 1123 Date and the destination when known', () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    expect(httpDate(at)).toBe('Wed, 02 Jan 2030 03:04:05 GMT');
    expect(outboundHeaders({ resource: 'quotes', source: 'onekhusa', destination: 'payeefsp', date: at, version: '1.1' })).toEqual({
      'content-type': 'application/vnd.interoperability.quotes+json;version=1.1',
      accept: 'application/vnd.interoperability.quotes+json;version=1',
      date: 'Wed, 02 Jan 2030 03:04:05 GMT',
      'fspiop-source': 'onekhusa',
      'fspiop-destination': 'payeefsp',
    });
    // GET /parties: the destination is what the lookup finds out; the switch wants Content-Type on a GET too.
    const lookup = outboundHeaders({ resource: 'parties', source: 'onekhusa', date: at });
    expect(lookup).not.toHaveProperty('fspiop-destination');
    expect(lookup['content-type']).toBe('application/vnd.interoperability.parties+json;version=1.0');
  });

  it('sends no Accept in a callback', () => {
    const headers = outboundHeaders({ resource: 'transfers', source: 'onekhusa', destination: 'payerfsp', date: new Date(0), kind: 'callback' });
    expect(headers).not.toHaveProperty('accept');
    expect(headers.date).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
  });

  it('reads an inbound Content-Type into resource and version', () => {
    expect(parseContentType('application/vnd.interoperability.quotes+json;version=1.0')).toEqual({ ok: true, resource: 'quotes', version: '1.0' });
    expect(parseContentType('application/vnd.interoperability.transfers+json ; version=1.1', 'transfers')).toEqual({ ok: true, resource: 'transfers', version: '1.1' });
    expect(parseContentType('Application/VND.Interoperability.bulkquotes+JSON;Version=1.1')).toEqual({ ok: true, resource: 'bulkQuotes', version: '1.1' });
  });

  it('refuses what is not an FSPIOP body of 1.0 or 1.1', () => {
    expect(parseContentType(undefined)).toMatchObject({ ok: false, errorCode: '3102' });
    expect(parseContentType('application/json')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(parseContentType('application/json; charset=utf-8')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(parseContentType('application/vnd.interoperability.widgets+json;version=1.0')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(parseContentType('application/vnd.interoperability.quotes+json')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(parseContentType('application/vnd.interoperability.quotes+json;version=1')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(parseContentType('application/vnd.interoperability.quotes+json;version=1.0', 'transfers')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(parseContentType('application/vnd.interoperability.quotes+json;version=2.0')).toMatchObject({ ok: false, errorCode: '3001' });
    expect(parseContentType('application/vnd.interoperability.quotes+json;version=1.2')).toMatchObject({ ok: false, errorCode: '3001' });
  });

  it('answers in the first version of Accept that we speak', () => {
    const type = 'application/vnd.interoperability.parties+json';
    expect(acceptedVersion(`${type};version=1`, 'parties')).toEqual({ ok: true, version: '1.1' });
    expect(acceptedVersion(`${type};version=1.0`, 'parties')).toEqual({ ok: true, version: '1.0' });
    expect(acceptedVersion(`${type}`, 'parties')).toEqual({ ok: true, version: '1.1' });
    expect(acceptedVersion(`${type};version=2.0, ${type};version=1.0`, 'parties')).toEqual({ ok: true, version: '1.0' });
    expect(acceptedVersion(`${type};version=2`, 'parties')).toMatchObject({ ok: false, errorCode: '3001' });
    expect(acceptedVersion('application/json', 'parties')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(acceptedVersion(`${type};version=1`, 'quotes')).toMatchObject({ ok: false, errorCode: '3101' });
    expect(acceptedVersion(undefined, 'parties')).toMatchObject({ ok: false, errorCode: '3102' });
  });

  it('takes FSPIOP-URI from the service on, with the query', () => {
    expect(fspiopUri('http://stg-simulator.moja.live/payerfsp/participants/MSISDN/123456789')).toBe('/participants/MSISDN/123456789');
    expect(fspiopUri('/fspiop/parties/MSISDN/265991234567?currency=MWK')).toBe('/parties/MSISDN/265991234567?currency=MWK');
    expect(fspiopUri('/quotes')).toBe('/quotes');
    expect(fspiopUri('/transfers/85feac2f-39b2-491b-817e-4a03203d4f14/error')).toBe('/transfers/85feac2f-39b2-491b-817e-4a03203d4f14/error');
    // The reference's regex takes the last resource segment and would give "/quotes" here.
    expect(fspiopUri('/fspiop/parties/ALIAS/quotes')).toBe('/parties/ALIAS/quotes');
    expect(fspiopUri('/fspiop/health')).toBeUndefined();
    expect(fspiopUri('/fspiop/health?next=/quotes')).toBeUndefined();
    expect(fspiopUri('/quotesX/1')).toBeUndefined();
  });

  it('finds headers in any case', () => {
    const headers = { 'FSPIOP-Source': 'payeefsp', Date: undefined, 'x-many': ['a', 'b'] };
    expect(headerValue(headers, 'fspiop-source')).toBe('payeefsp');
    expect(headerValue(headers, 'date')).toBeUndefined();
    expect(headerValue(headers, 'X-Many')).toBe('a, b');
  });
});

describe('amounts', () => {
  it('writes minor units as canonical FSPIOP amounts', () => {
    const cases: Array<[number, string]> = [
      [500000, '5000'],
      [12340, '123.4'],
      [12345, '123.45'],
      [5, '0.05'],
      [50, '0.5'],
      [100, '1'],
      [0, '0'],
      [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
    ];
    for (const [minor, text] of cases) {
      expect(toFspiopAmount(minor, 'MWK')).toBe(text);
      expect(AMOUNT_PATTERN.test(text)).toBe(true);
      expect(fromFspiopAmount(text, 'MWK')).toBe(minor);
    }
    expect(toFspiopAmount(1234, 'JPY')).toBe('1234');
    expect(toFspiopAmount(1, 'BHD')).toBe('0.001');
    expect(toFspiopAmount(12340, 2)).toBe('123.4');
    expect(toMoney(12345, 'MWK')).toEqual({ currency: 'MWK', amount: '123.45' });
  });

  it('refuses what is not an integer count of minor units', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) expect(() => toFspiopAmount(bad, 'MWK'), String(bad)).toThrow(RangeError);
    expect(() => toFspiopAmount(1, 'ABC')).toThrow(/no exponent/);
    expect(() => toFspiopAmount(1, 'XDR')).toThrow(/no exponent/);
    // Five decimals cannot be written in FSPIOP's four.
    expect(() => toFspiopAmount(1, 5)).toThrow(/4/);
    expect(toFspiopAmount(10, 5)).toBe('0.0001');
  });

  it('reads only canonical amounts with no more decimals than the currency has', () => {
    for (const bad of ['123.40', '01', '-1', ' 1', '1 ', '1.', '.5', '1e3', '1,5', '0.00', '0.0', '', '١٢٣', '123.456', '0.001']) {
      expect(fromFspiopAmount(bad, 'MWK'), JSON.stringify(bad)).toBeUndefined();
    }
    expect(fromFspiopAmount(123.45, 'MWK')).toBeUndefined();
    expect(fromFspiopAmount('1.5', 'JPY')).toBeUndefined();
    expect(fromFspiopAmount('1', 'ABC')).toBeUndefined();
    // 18 integer digits pass the pattern, but not in a safe integer of minor units.
    expect(AMOUNT_PATTERN.test('999999999999999999')).toBe(true);
    expect(fromFspiopAmount('999999999999999999', 'MWK')).toBeUndefined();
    expect(AMOUNT_PATTERN.test('1234567890123456789')).toBe(false);
    expect(fromFspiopAmount('0.001', 'BHD')).toBe(1);
    expect(moneyMinor({ currency: 'MWK', amount: '4.35' })).toBe(435);
  });

  it('goes there and back for any amount and exponent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 4 }), (minor, exponent) => {
        const text = toFspiopAmount(minor, exponent);
        expect(AMOUNT_PATTERN.test(text)).toBe(true);
        expect(fromFspiopAmount(text, exponent)).toBe(minor);
      }),
      { seed: 20261128, numRuns: 2000 },
    );
  });

  it('knows the exponents of the currencies', () => {
    expect(currencyExponent('MWK')).toBe(2);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('UGX')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(currencyExponent('mwk')).toBeUndefined();
    expect(currencyExponent('XDR')).toBeUndefined();
  });
});

describe('ids', () => {
  it('makes RFC 4122 version 5 UUIDs', () => {
    // RFC 4122's DNS namespace; the same value as Python's uuid.uuid5(uuid.NAMESPACE_DNS, 'www.example.com').
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(TypeError);
  });

  it('derives stable CorrelationIds from our own records', () => {
    // Pinned: a change of namespace or of how the parts are hashed would send payouts in flight again.
    expect(derivedId('transfer', 'onekhusa', 'P-0001')).toBe('ed14ddee-fbb5-5e44-86ce-e6e6cea6c7bb');
    expect(derivedId('transfer', 'onekhusa', 'P-0001')).toBe(derivedId('transfer', 'onekhusa', 'P-0001'));
    const ids = [
      derivedId('transfer', 'onekhusa', 'P-0001'),
      derivedId('quote', 'onekhusa', 'P-0001'),
      derivedId('transfer', 'onekhusa', 'P-0002'),
      derivedId('transfer', 'otherfsp', 'P-0001'),
      derivedId('transfer', 'onekhusa', 'P-0001', '2'),
      derivedId('x', 'a|b', 'c'),
      derivedId('x', 'a', 'b|c'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(CORRELATION_ID_PATTERN);
  });

  it('checks CorrelationIds as the spec pattern does', () => {
    expect(isCorrelationId(randomCorrelationId())).toBe(true);
    expect(isCorrelationId('b51ec534-ee48-4575-b6a9-ead2955b8069')).toBe(true);
    expect(isCorrelationId('B51EC534-EE48-4575-B6A9-EAD2955B8069')).toBe(false);
    expect(isCorrelationId('b51ec534-ee48-7575-b6a9-ead2955b8069')).toBe(false); // version 7
    expect(isCorrelationId('b51ec534-ee48-4575-c6a9-ead2955b8069')).toBe(false); // variant 110
    expect(isCorrelationId('b51ec534ee484575b6a9ead2955b8069')).toBe(false);
    expect(isCorrelationId(42)).toBe(false);
  });
});

/** An ILP packet of `type` around `contents`, OER as the spec has it, for the malformed cases. */
function envelope(type: number, contents: Buffer): string {
  const length = contents.length < 128 ? Buffer.from([contents.length]) : Buffer.from([0x82, contents.length >> 8, contents.length & 0xff]);
  return Buffer.concat([Buffer.from([type]), length, contents]).toString('base64url');
}
function v1Contents(amount: bigint, account: string, data: Buffer): Buffer {
  const amountBytes = Buffer.alloc(8);
  amountBytes.writeBigUInt64BE(amount);
  const octets = (b: Buffer) => Buffer.concat([b.length < 128 ? Buffer.from([b.length]) : Buffer.from([0x82, b.length >> 8, b.length & 0xff]), b]);
  return Buffer.concat([amountBytes, octets(Buffer.from(account, 'ascii')), octets(data), Buffer.from([0])]);
}
const jsonData = (value: unknown) => Buffer.from(Buffer.from(JSON.stringify(value)).toString('base64url'), 'ascii');

describe('ilp', () => {
  it('decodes the reference ILPv1 packet', () => {
    const packet = decodeIlpPacket(REFERENCE_V1.ilpPacket);
    expect(packet.format).toBe('ilpv1-payment');
    // Minor units of the currency's exponent: MWK 123.45 is 12345, as the reference scales it.
    expect(packet.amount).toBe(REFERENCE_V1.amount);
    expect(packet.destination).toBe(REFERENCE_V1.account);
    expect(packet.expiresAt).toBeUndefined();
    expect(packet.transaction).toEqual(TX);
    expect(ilpAmount(packet.transaction.amount)).toBe(packet.amount);
  });

  it('builds the reference ILPv1 packet, condition and fulfilment byte for byte', () => {
    const destination = ilpAddress(TX.payee.partyIdInfo);
    expect(destination).toBe(REFERENCE_V1.account);
    const terms = buildIlpPacket({ transaction: TX, destination, secret: SECRET });
    expect(terms).toEqual({ ilpPacket: REFERENCE_V1.ilpPacket, condition: REFERENCE_V1.condition, fulfilment: REFERENCE_V1.fulfilment });
    // At POST /transfers the payee computes the fulfilment again from the packet it receives.
    expect(fulfilmentFor(REFERENCE_V1.ilpPacket, SECRET)).toBe(REFERENCE_V1.fulfilment);
    expect(fulfilmentFor(REFERENCE_V1.ilpPacket, Buffer.from(SECRET))).toBe(REFERENCE_V1.fulfilment);
    expect(fulfilmentFor(REFERENCE_V1.ilpPacket, 'another secret')).not.toBe(REFERENCE_V1.fulfilment);
  });

  it('decodes the reference ILPv4 prepare packet', () => {
    const packet = decodeIlpPacket(REFERENCE_V4.ilpPacket);
    expect(packet).toEqual({
      format: 'ilpv4-prepare',
      amount: REFERENCE_V4.amount,
      destination: REFERENCE_V4.destination,
      expiresAt: new Date(REFERENCE_V4.expiresAt),
      executionCondition: REFERENCE_V4.condition,
      transaction: TX,
    });
    // Standard base64 of the same bytes reads the same.
    expect(decodeIlpPacket(Buffer.from(REFERENCE_V4.ilpPacket, 'base64url').toString('base64'))).toEqual(packet);
  });

  it('matches fulfilments to conditions', () => {
    expect(fulfilmentMatches(REFERENCE_V1.fulfilment, REFERENCE_V1.condition)).toBe(true);
    expect(fulfilmentMatches(REFERENCE_V4.fulfilment, REFERENCE_V4.condition)).toBe(true);
    expect(conditionFor(REFERENCE_V1.fulfilment)).toBe(REFERENCE_V1.condition);
    expect(fulfilmentMatches(REFERENCE_V1.fulfilment, REFERENCE_V4.condition)).toBe(false);
    expect(fulfilmentMatches(REFERENCE_V1.condition, REFERENCE_V1.fulfilment)).toBe(false);
    // 32 bytes in 43 characters, base64url only: no padding, no '+', no second spelling.
    expect(fulfilmentMatches(`${REFERENCE_V1.fulfilment}=`, REFERENCE_V1.condition)).toBe(false);
    expect(fulfilmentMatches(REFERENCE_V1.fulfilment.slice(0, 42), REFERENCE_V1.condition)).toBe(false);
    expect(fulfilmentMatches(Buffer.from(REFERENCE_V1.fulfilment, 'base64url').toString('base64').slice(0, 43), REFERENCE_V1.condition)).toBe(false);
    const lastChar = REFERENCE_V1.fulfilment.at(-1)!; // 'g': its 2 spare bits are 0; 'h' spells the same bytes
    expect(fulfilmentMatches(`${REFERENCE_V1.fulfilment.slice(0, 42)}${String.fromCharCode(lastChar.charCodeAt(0) + 1)}`, REFERENCE_V1.condition)).toBe(false);
    expect(fulfilmentMatches(undefined, REFERENCE_V1.condition)).toBe(false);
    expect(() => conditionFor('short')).toThrow(IlpPacketError);
  });

  it('writes exact amounts where the reference does float arithmetic', () => {
    // The reference's IlpV1 writes 4349999999994 for MWK 4.35 (Number("4.35") * 100 = 434.99999999999994).
    const terms = buildIlpPacket({ transaction: { ...TX, amount: { currency: 'MWK', amount: '4.35' } }, destination: REFERENCE_V1.account, secret: SECRET });
    expect(decodeIlpPacket(terms.ilpPacket).amount).toBe('435');
    expect(fulfilmentMatches(terms.fulfilment, terms.condition)).toBe(true);
    expect(() => buildIlpPacket({ transaction: { ...TX, amount: { currency: 'MWK', amount: '4.355' } }, destination: 'g.x', secret: SECRET })).toThrow(IlpPacketError);
    expect(() => buildIlpPacket({ transaction: TX, destination: 'g.has space', secret: SECRET })).toThrow(IlpPacketError);
  });

  it('refuses garbage with a clear error', () => {
    const valid = Buffer.from(REFERENCE_V1.ilpPacket, 'base64url');
    const cases: Array<[unknown, RegExp]> = [
      [42, /not base64url/],
      ['not base64!', /not base64url/],
      ['', /not base64url/],
      [valid.subarray(0, 100).toString('base64url'), /ends inside its contents/],
      [Buffer.concat([valid, Buffer.from([0, 0])]).toString('base64url'), /2 bytes after its contents/],
      [envelope(13, Buffer.alloc(40)), /type 13 is neither/],
      [envelope(1, Buffer.from([0, 0, 0])), /ends inside its amount/],
      [Buffer.from([1, 0x81, 5, 0, 0, 0, 0, 0]).toString('base64url'), /non-canonical length/],
      [envelope(1, v1Contents(1n, 'g.a b', jsonData(TX))), /account is not printable ASCII/],
      [envelope(1, v1Contents(1n, 'g.payee', Buffer.from('not base64url!'))), /data is not base64url/],
      [envelope(1, v1Contents(1n, 'g.payee', Buffer.from(Buffer.from('{not json').toString('base64url')))), /not the JSON of a Transaction/],
      [envelope(1, v1Contents(1n, 'g.payee', jsonData([1, 2]))), /not a JSON object/],
      [envelope(1, v1Contents(1n, 'g.payee', jsonData({ ...TX, amount: undefined }))), /no valid amount\.amount/],
      [envelope(1, v1Contents(1n, 'g.payee', jsonData({ ...TX, payer: {} }))), /no valid payer\.partyIdInfo/],
      [SPEC_EXAMPLE_PACKET, /data is not base64url/],
    ];
    for (const [input, message] of cases) {
      expect(() => decodeIlpPacket(input), String(input).slice(0, 40)).toThrow(IlpPacketError);
      expect(() => decodeIlpPacket(input), String(input).slice(0, 40)).toThrow(message);
    }
  });

  it('refuses an ILPv4 packet with an impossible expiry or a bad destination', () => {
    const bytes = Buffer.from(REFERENCE_V4.ilpPacket, 'base64url');
    // Contents start after the type byte and a 3-byte length; the expiry after the 8-byte amount.
    const expiryAt = 4 + 8;
    const withExpiry = (text: string) => Buffer.concat([bytes.subarray(0, expiryAt), Buffer.from(text, 'ascii'), bytes.subarray(expiryAt + 17)]).toString('base64url');
    expect(decodeIlpPacket(withExpiry('20300102030405678')).expiresAt?.toISOString()).toBe('2030-01-02T03:04:05.678Z');
    expect(() => decodeIlpPacket(withExpiry('20300231030405678'))).toThrow(/expiry is not an Interledger time/);
    expect(() => decodeIlpPacket(withExpiry('2030010203040567x'))).toThrow(/expiry/);
    const destinationAt = expiryAt + 17 + 32 + 1;
    const badDestination = Buffer.from(bytes);
    badDestination.write('x', destinationAt, 'ascii'); // "g.mojaloop" → "x.mojaloop"
    expect(() => decodeIlpPacket(badDestination.toString('base64url'))).toThrow(/destination is not an ILP address/);
  });

  describe.skipIf(!hasReference)('against the installed reference', () => {
    it("builds the reference's packet for other transactions too", () => {
      const ilp = reference().ilp.ilpFactory('v1', { secret: 'another-secret', logger: silent });
      const transactions: IlpTransaction[] = [
        { ...TX, amount: { currency: 'MWK', amount: '5000' }, note: 'Zikomo kwambiri — é ✓' },
        { ...TX, amount: { currency: 'JPY', amount: '1234' }, note: undefined },
        { ...TX, payee: { partyIdInfo: { partyIdType: 'ACCOUNT_ID', partyIdentifier: 'ACC-77', partySubIdOrType: 'SAVINGS', fspId: 'onekhusa' } } },
      ];
      for (const tx of transactions) {
        const theirs = ilp.getResponseIlp(JSON.parse(JSON.stringify(tx)));
        const ours = buildIlpPacket({ transaction: JSON.parse(JSON.stringify(tx)), destination: ilpAddress(tx.payee.partyIdInfo), secret: 'another-secret' });
        expect(ours).toEqual(theirs);
      }
    });
  });
});

describe('jws', () => {
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  let otherPublicKey: KeyObject;
  const body = '{"transferState":"COMMITTED","fulfilment":"2EgutFfdAdUYtr7C8UFOOb_S49waPklUpsal3_KGyDg","completedTimestamp":"2030-01-02T03:04:05.678Z"}';
  const uri = '/transfers/85feac2f-39b2-491b-817e-4a03203d4f14';
  const headers = {
    'content-type': 'application/vnd.interoperability.transfers+json;version=1.0',
    date: 'Wed, 02 Jan 2030 03:04:05 GMT',
    'fspiop-source': 'payeefsp',
    'fspiop-destination': 'onekhusa',
  };

  beforeAll(() => {
    ({ privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
    otherPublicKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
  });

  /** A PUT /transfers callback signed by payeefsp, as received at our /fspiop mount, with `change` applied. */
  function received(change: { headers?: Record<string, string | undefined>; uri?: string; method?: string; rawBody?: string | Buffer; sign?: Partial<SignInput> } = {}) {
    const signature = signRequest({ method: 'PUT', uri: `http://onekhusa.example/fspiop${uri}`, headers, body, privateKeyPem: privateKey, ...change.sign });
    return {
      method: change.method ?? 'PUT',
      uri: change.uri ?? `/fspiop${uri}`,
      headers: { ...headers, 'fspiop-signature': signature, ...change.headers },
      rawBody: change.rawBody ?? Buffer.from(body),
      publicKeys: { payeefsp: publicKey } as Record<string, KeyObject | string>,
    };
  }

  it('signs the protected header the Signature document describes', () => {
    const value = JSON.parse(signRequest({ method: 'put', uri, headers, body, privateKeyPem: privateKey }));
    expect(Object.keys(value)).toEqual(['signature', 'protectedHeader']);
    expect(JSON.parse(Buffer.from(value.protectedHeader, 'base64url').toString('utf8'))).toEqual({
      alg: 'RS256',
      'FSPIOP-URI': uri,
      'FSPIOP-HTTP-Method': 'PUT',
      'FSPIOP-Source': 'payeefsp',
      'FSPIOP-Destination': 'onekhusa',
      Date: 'Wed, 02 Jan 2030 03:04:05 GMT',
    });
    expect(signatureHeaders({ method: 'put', uri: `https://switch.example/base${uri}`, headers, body, privateKeyPem: privateKey })).toMatchObject({ 'fspiop-uri': uri, 'fspiop-http-method': 'PUT' });
  });

  it('verifies our own signature over the raw bytes, header names in any case', () => {
    expect(verifyRequest(received())).toEqual({ ok: true, source: 'payeefsp' });
    const request = received();
    const upper = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyRequest({ ...request, headers: upper })).toEqual({ ok: true, source: 'payeefsp' });
    expect(verifyRequest({ ...request, publicKeys: (fspId: string) => (fspId === 'payeefsp' ? publicKey.export({ type: 'spki', format: 'pem' }).toString() : undefined) })).toMatchObject({ ok: true });
    expect(verifyRequest({ ...request, publicKeys: undefined, publicKeyPem: publicKey })).toMatchObject({ ok: true });
    // A body that is not JSON.stringify's form is signed and verified as it is.
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    expect(verifyRequest(received({ sign: { body: pretty }, rawBody: pretty }))).toMatchObject({ ok: true });
    expect(verifyRequest(received({ sign: { body: '' }, rawBody: '' }))).toMatchObject({ ok: true });
  });

  it('accepts a destination the switch set when the sender did not protect one', () => {
    const { 'fspiop-destination': _unset, ...lookupHeaders } = headers;
    expect(verifyRequest(received({ sign: { headers: lookupHeaders }, headers: { 'fspiop-destination': 'onekhusa' } }))).toMatchObject({ ok: true });
  });

  it('refuses each tampering', () => {
    const reasons: Array<[string, ReturnType<typeof received>, RegExp]> = [
      ['wrong key', { ...received(), publicKeys: { payeefsp: otherPublicKey } }, /does not verify/],
      ['body changed by one byte', received({ rawBody: body.replace('COMMITTED', 'COMMITTEE') }), /does not verify/],
      ['body re-serialised', received({ rawBody: JSON.stringify(JSON.parse(body), null, 1) }), /does not verify/],
      ['another URI', received({ uri: '/fspiop/transfers/85feac2f-39b2-491b-817e-4a03203d4f15' }), /FSPIOP-URI/],
      ['a query added', received({ uri: `/fspiop${uri}?x=1` }), /FSPIOP-URI/],
      ['another method', received({ method: 'POST' }), /FSPIOP-HTTP-Method/],
      ['another source', { ...received({ headers: { 'fspiop-source': 'evilfsp' } }), publicKeys: { payeefsp: publicKey, evilfsp: publicKey } }, /FSPIOP-Source/],
      ['another date', received({ headers: { date: 'Wed, 02 Jan 2030 03:04:06 GMT' } }), /Date/],
      ['no date', received({ headers: { date: undefined } }), /Date/],
      ['another destination', received({ headers: { 'fspiop-destination': 'otherfsp' } }), /FSPIOP-Destination/],
      ['destination dropped', received({ headers: { 'fspiop-destination': undefined } }), /FSPIOP-Destination/],
      ['FSPIOP-URI header differs', received({ headers: { 'fspiop-uri': '/transfers/other' } }), /FSPIOP-URI/],
      ['no key for the source', { ...received(), publicKeys: { otherfsp: publicKey } }, /no public key for FSPIOP-Source payeefsp/],
      ['an unusable key', { ...received(), publicKeys: { payeefsp: 'not a pem' } }, /not a usable key/],
    ];
    for (const [what, request, reason] of reasons) {
      const verdict = verifyRequest(request);
      expect(verdict, what).toMatchObject({ ok: false, errorCode: '3105' });
      expect(verdict.ok ? '' : verdict.reason, what).toMatch(reason);
    }
  });

  it('refuses a missing or malformed signature header', () => {
    const request = received();
    const withSignature = (value: string | undefined) => verifyRequest({ ...request, headers: { ...request.headers, 'fspiop-signature': value } });
    expect(withSignature(undefined)).toEqual({ ok: false, errorCode: '3105', reason: 'FSPIOP-Signature header is missing' });
    expect(verifyRequest({ ...request, headers: { ...request.headers, 'fspiop-source': undefined } })).toMatchObject({ ok: false, errorCode: '3102' });
    const { signature, protectedHeader } = JSON.parse(request.headers['fspiop-signature'] as string);
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const params = JSON.parse(Buffer.from(protectedHeader, 'base64url').toString('utf8'));
    const malformed: Array<[string | undefined, RegExp]> = [
      ['not json', /not JSON/],
      [JSON.stringify({ signature }), /no base64url protectedHeader/],
      [JSON.stringify({ protectedHeader }), /no base64url signature/],
      [JSON.stringify({ signature: `${signature}=`, protectedHeader }), /no base64url signature/],
      [JSON.stringify({ signature, protectedHeader: Buffer.from('{not json').toString('base64url') }), /not base64url of UTF-8 JSON/],
      [JSON.stringify({ signature, protectedHeader: b64([1]) }), /not a JSON object/],
      [JSON.stringify({ signature, protectedHeader: b64({ ...params, alg: 'none' }) }), /alg must be/],
      [JSON.stringify({ signature, protectedHeader: b64({ ...params, alg: 'HS256' }) }), /alg must be/],
      [JSON.stringify({ signature, protectedHeader: b64({ ...params, 'FSPIOP-URI': undefined }) }), /has no FSPIOP-URI/],
      [JSON.stringify({ signature, protectedHeader: b64({ ...params, 'FSPIOP-Source': 'payeefsp ' }) }), /does not verify/],
    ];
    for (const [value, reason] of malformed) {
      const verdict = withSignature(value);
      expect(verdict, value).toMatchObject({ ok: false, errorCode: '3105' });
      expect(verdict.ok ? '' : verdict.reason, value).toMatch(reason);
    }
  });

  it('checks every other protected parameter against its HTTP header, and allows RS384 and RS512', () => {
    const request = received();
    const params = JSON.parse(Buffer.from(JSON.parse(request.headers['fspiop-signature'] as string).protectedHeader, 'base64url').toString('utf8'));
    /** The request signed over a protected header of our choosing. */
    const signedWith = (extra: Record<string, unknown>, hash = 'sha256') => {
      const protectedHeader = Buffer.from(JSON.stringify({ ...params, ...extra })).toString('base64url');
      const signature = sign(hash, Buffer.from(`${protectedHeader}.${Buffer.from(body).toString('base64url')}`), privateKey).toString('base64url');
      return verifyRequest({ ...request, headers: { ...request.headers, 'fspiop-signature': JSON.stringify({ signature, protectedHeader }) } });
    };
    expect(signedWith({})).toMatchObject({ ok: true });
    expect(signedWith({ kid: 'payeefsp-2030', typ: 'JOSE' })).toMatchObject({ ok: true });
    expect(signedWith({ 'Content-Type': headers['content-type'] })).toMatchObject({ ok: true });
    expect(signedWith({ alg: 'RS512' }, 'sha512')).toMatchObject({ ok: true });
    expect(signedWith({ alg: 'RS384' }, 'sha384')).toMatchObject({ ok: true });
    expect(signedWith({ alg: 'RS512' }, 'sha256')).toMatchObject({ ok: false, reason: expect.stringMatching(/does not verify/) });
    expect(signedWith({ 'Content-Type': 'application/json' })).toMatchObject({ ok: false, reason: expect.stringMatching(/Content-Type/) });
    expect(signedWith({ 'X-Request-Id': 'abc' })).toMatchObject({ ok: false, reason: expect.stringMatching(/X-Request-Id/) });
    // A JWS extension we do not implement (RFC 7515 §4.1.11, RFC 7797) is refused as such.
    expect(signedWith({ crit: ['exp'], exp: 1 })).toMatchObject({ ok: false, reason: 'the protected header uses "crit", which we do not implement' });
    expect(signedWith({ b64: false })).toMatchObject({ ok: false, reason: 'the protected header uses "b64", which we do not implement' });
  });

  it('refuses to sign with a key the spec does not allow, or without source and date', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(() => signRequest({ method: 'PUT', uri, headers, body, privateKeyPem: ec })).toThrow(/RSA key of 2048/);
    expect(() => signRequest({ method: 'PUT', uri, headers, body, privateKeyPem: small })).toThrow(/RSA key of 2048/);
    expect(() => signRequest({ method: 'PUT', uri, headers: { ...headers, date: undefined }, body, privateKeyPem: privateKey })).toThrow(/Date/);
    expect(() => signRequest({ method: 'PUT', uri: '/health', headers, body, privateKeyPem: privateKey })).toThrow(/no FSPIOP resource/);
  });

  it('verifies the reference signer fixture over the bytes it sent', () => {
    const request = { method: 'PUT', uri: REFERENCE_SIGNED.uri, headers: REFERENCE_SIGNED.headers, rawBody: REFERENCE_SIGNED.rawBody, publicKeys: { payeefsp: REFERENCE_SIGNED.publicKeyPem } };
    expect(verifyRequest(request)).toEqual({ ok: true, source: 'payeefsp' });
    expect(verifyRequest({ ...request, rawBody: REFERENCE_SIGNED.rawBody.replace('123.45', '123.46') })).toMatchObject({ ok: false, errorCode: '3105' });
    expect(verifyRequest({ ...request, method: 'POST' })).toMatchObject({ ok: false, errorCode: '3105' });
  });

  describe.skipIf(!hasReference)('against the installed reference', () => {
    it('verifies what the reference signs, and the reference verifies what we sign', () => {
      const { jws } = reference();
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const parsed = JSON.parse(body);

      const theirs = { method: 'PUT', uri: `http://onekhusa.example/fspiop${uri}`, headers: { ...headers }, body: parsed as unknown };
      new jws.signer({ signingKey: pem, logger: silent }).sign(theirs);
      // The reference sends JSON.stringify of the body: those are the bytes we verify.
      expect(theirs.body).toBe(body);
      expect(verifyRequest({ method: 'PUT', uri: `/fspiop${uri}`, headers: theirs.headers, rawBody: String(theirs.body), publicKeys: { payeefsp: publicKey } })).toEqual({ ok: true, source: 'payeefsp' });

      const validator = new jws.validator({ validationKeys: { payeefsp: publicKey.export({ type: 'spki', format: 'pem' }).toString() }, logger: silent });
      const ours = { ...headers, ...signatureHeaders({ method: 'PUT', uri: `https://switch.example${uri}`, headers, body, privateKeyPem: privateKey }) };
      // The reference validates the parsed body, serialised again: it needs the body in JSON.stringify's form.
      expect(validator.validate({ headers: ours, body: parsed })).toBe(true);
      const tampered = { ...headers, ...signatureHeaders({ method: 'PUT', uri: `https://switch.example${uri}`, headers, body: body.replace('COMMITTED', 'ABORTED'), privateKeyPem: privateKey }) };
      expect(() => validator.validate({ headers: tampered, body: parsed })).toThrow();
      // A valid signature over a body with spaces: we verify it, the reference refuses it.
      const pretty = JSON.stringify(parsed, null, 2);
      const prettySigned = { ...headers, ...signatureHeaders({ method: 'PUT', uri, headers, body: pretty, privateKeyPem: privateKey }) };
      expect(verifyRequest({ method: 'PUT', uri, headers: prettySigned, rawBody: pretty, publicKeys: { payeefsp: publicKey } })).toMatchObject({ ok: true });
      expect(() => validator.validate({ headers: prettySigned, body: JSON.parse(pretty) })).toThrow(/invalid signature/);
    });
  });
});

describe('errors', () => {
  it('names the codes as API Definition v1.1 §7.6 does', () => {
    expect(Object.keys(FSPIOP_ERRORS)).toHaveLength(56);
    expect(FSPIOP_ERRORS['3001']).toBe('Unacceptable version requested');
    expect(FSPIOP_ERRORS['3002']).toBe('Unknown URI');
    expect(FSPIOP_ERRORS['3201']).toBe('Destination FSP Error');
    expect(FSPIOP_ERRORS['3107']).toBe('Missing mandatory extension parameter');
    expect(FSPIOP_ERRORS['4001']).toBe('Payer FSP insufficient liquidity');
    expect(FSPIOP_ERRORS['5103']).toBe('Payee FSP rejected quote');
    expect(errorName('5241')).toBe('Payee limit error');
    expect(errorName('5107')).toBeUndefined();
    expect(genericCode('3341')).toBe('3300');
    expect(genericCode('3303')).toBe('3303');
  });

  it('builds ErrorInformationObject bodies the schema accepts', () => {
    expect(errorInformation('3204')).toEqual({ errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } });
    const versions = errorInformation('3001', 'The Client requested an unsupported version, see extension list for supported version(s).', [
      { key: '1', value: '0' },
      { key: '1', value: '1' },
    ]);
    expect(versions.errorInformation.extensionList?.extension).toEqual([
      { key: '1', value: '0' },
      { key: '1', value: '1' },
    ]);
    expect(validate('error', versions)).toBeNull();
    const long = errorInformation('3100', `${'é'.repeat(120)}${'😀'.repeat(20)}`, { where: 'x'.repeat(300) });
    expect(Array.from(long.errorInformation.errorDescription)).toHaveLength(128);
    expect(long.errorInformation.extensionList?.extension[0].value).toHaveLength(128);
    expect(validate('error', long)).toBeNull();
    expect(() => errorInformation('0123')).toThrow(RangeError);
    expect(() => errorInformation('3100', 'x', Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])))).toThrow(RangeError);
    expect(() => errorInformation('3100', 'x', { ['k'.repeat(33)]: 'v' })).toThrow(RangeError);
  });

  it('gives the HTTP status of a synchronous answer', () => {
    const statuses: Record<string, number> = { '3001': 406, '3002': 404, '3101': 400, '3102': 400, '3105': 400, '3106': 400, '2002': 501, '2003': 503, '2001': 500, '1001': 500, '3141': 400 };
    for (const [code, status] of Object.entries(statuses)) expect(httpStatusFor(code), code).toBe(status);
  });

  it('maps switch errors to payout responses', () => {
    const cases: Array<[string, 'parties' | 'quotes' | 'transfers' | undefined, string, string]> = [
      ['3204', 'parties', 'F101', 'Beneficiary account not found'],
      ['3204', 'quotes', 'F101', 'Beneficiary account not found'],
      ['3201', undefined, 'F101', 'Beneficiary account not found'],
      ['3203', 'transfers', 'F101', 'Beneficiary account not found'],
      ['3200', 'parties', 'F101', 'Beneficiary account not found'],
      ['3241', 'parties', 'F101', 'Beneficiary account not found'],
      ['3200', 'transfers', 'F109', 'Rejected by the payment switch (3200 Generic ID not found)'],
      ['3202', 'parties', 'F109', 'Rejected by the payment switch (3202 Payer FSP ID not found)'],
      ['3208', 'transfers', 'F109', 'Rejected by the payment switch (3208 Transfer ID not found)'],
      ['5200', 'quotes', 'F103', 'Amount exceeds the beneficiary account limit'],
      ['5250', 'transfers', 'F103', 'Amount exceeds the beneficiary account limit'],
      ['4200', 'quotes', 'F109', 'Rejected by the payment switch (4200 Payer limit error)'],
      ['3300', 'quotes', 'F108', 'Connector did not respond; transfer failed'],
      ['3302', 'transfers', 'F108', 'Connector did not respond; transfer failed'],
      ['3303', 'transfers', 'F108', 'Connector did not respond; transfer failed'],
      ['3310', 'transfers', 'F108', 'Connector did not respond; transfer failed'],
      ['5101', 'quotes', 'F109', 'Rejected by the payment switch (5101 Payee rejected quote)'],
      ['4001', 'transfers', 'F109', 'Rejected by the payment switch (4001 Payer FSP insufficient liquidity)'],
      ['2003', 'parties', 'F109', 'Rejected by the payment switch (2003 Service currently unavailable)'],
      ['5150', 'quotes', 'F109', 'Rejected by the payment switch (5150, scheme error read as 5100 Generic Payee rejection)'],
      ['5107', 'quotes', 'F109', 'Rejected by the payment switch (5107)'],
      ['abc', undefined, 'F109', 'Rejected by the payment switch (no valid error code)'],
    ];
    for (const [code, stage, responseCode, responseMessage] of cases) expect(payoutResponseFor(code, stage), `${code} ${stage}`).toEqual({ responseCode, responseMessage });
    for (const code of Object.keys(FSPIOP_ERRORS)) expect(payoutResponseFor(`${code.slice(0, 2)}99`).responseMessage.length).toBeLessThan(200);
  });
});

describe('schemas', () => {
  const party = (partyIdentifier: string, fspId: string) => ({ partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier, fspId } });
  const valid: Record<BodyKind, Record<string, unknown>> = {
    partiesPut: {
      party: {
        partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '265991234567', partySubIdOrType: 'PASSPORT', fspId: 'payeefsp' },
        name: 'Chikondi Banda',
        personalInfo: { complexName: { firstName: 'Chikondi', lastName: 'Banda' }, dateOfBirth: '1992-02-29' },
      },
    },
    quotesPut: {
      transferAmount: { currency: 'MWK', amount: '123.45' },
      payeeReceiveAmount: { currency: 'MWK', amount: '123.45' },
      expiration: '2030-01-02T03:04:05.678+02:00',
      ilpPacket: REFERENCE_V1.ilpPacket,
      condition: REFERENCE_V1.condition,
    },
    transfersPut: { fulfilment: REFERENCE_V1.fulfilment, completedTimestamp: '2030-01-02T03:04:05.678Z', transferState: 'COMMITTED' },
    error: { errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected quote', extensionList: { extension: [{ key: 'k', value: 'v' }] } } },
    quotesPost: {
      quoteId: TX.quoteId,
      transactionId: TX.transactionId,
      payee: party('265991234567', 'onekhusa'),
      payer: party('265881234567', 'payerfsp'),
      amountType: 'RECEIVE',
      amount: { currency: 'MWK', amount: '5000' },
      transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
      note: 'rent',
      someFutureElement: { added: 'in a minor version' },
    },
    transfersPost: {
      transferId: '0b1a9c1e-5d1f-4c6e-9b3a-2f4e6d8c0a12',
      payeeFsp: 'onekhusa',
      payerFsp: 'payerfsp',
      amount: { currency: 'MWK', amount: '5000' },
      ilpPacket: REFERENCE_V1.ilpPacket,
      condition: REFERENCE_V1.condition,
      expiration: '2030-01-02T03:04:05.678Z',
    },
    transfersPatch: { completedTimestamp: '2030-01-02T03:04:05.678Z', transferState: 'COMMITTED' },
  };

  it('accepts a valid body of each kind, and leaves it as it was', () => {
    for (const [kind, body] of Object.entries(valid) as Array<[BodyKind, Record<string, unknown>]>) {
      const before = structuredClone(body);
      expect(validate(kind, body), kind).toBeNull();
      expect(body).toEqual(before);
    }
  });

  /** `body` with the element at `path` set (undefined deletes it). */
  function changed(kind: BodyKind, path: string, value: unknown): Record<string, unknown> {
    const body = structuredClone(valid[kind]);
    const keys = path.split('.');
    let at: Record<string, unknown> = body;
    for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
    if (value === undefined) delete at[keys.at(-1)!];
    else at[keys.at(-1)!] = value;
    return body;
  }

  it('answers each invalid body with the spec error code and the element', () => {
    const cases: Array<[BodyKind, string, unknown, string, string]> = [
      ['partiesPut', 'party.partyIdInfo.partyIdentifier', undefined, '3102', 'Missing mandatory element - party.partyIdInfo.partyIdentifier'],
      ['partiesPut', 'party', undefined, '3102', 'Missing mandatory element - party'],
      ['partiesPut', 'party.partyIdInfo.partyIdType', 'PHONE', '3101', 'Malformed syntax - party.partyIdInfo.partyIdType is not an allowed PartyIdType: MSISDN, EMAIL, PERSONAL_ID'],
      ['partiesPut', 'party.name', '<b>Banda</b>', '3101', 'Malformed syntax - party.name is not a valid PartyName'],
      ['partiesPut', 'party.personalInfo.dateOfBirth', '1993-02-29', '3101', 'Malformed syntax - party.personalInfo.dateOfBirth is not a valid DateOfBirth'],
      ['partiesPut', 'party.partyIdInfo.fspId', 'f'.repeat(33), '3101', 'Malformed syntax - party.partyIdInfo.fspId must have at most 32 characters'],
      ['quotesPut', 'transferAmount.amount', '123.40', '3101', 'Malformed syntax - transferAmount.amount is not a valid Amount'],
      ['quotesPut', 'transferAmount.amount', 123.4, '3101', 'Malformed syntax - transferAmount.amount must be string'],
      ['quotesPut', 'expiration', '2030-01-02T03:04:05Z', '3101', 'Malformed syntax - expiration is not a valid DateTime'],
      ['quotesPut', 'condition', `${REFERENCE_V1.condition}=`, '3101', 'Malformed syntax - condition is not a valid IlpCondition'],
      ['quotesPut', 'ilpPacket', undefined, '3102', 'Missing mandatory element - ilpPacket'],
      ['transfersPut', 'transferState', 'DONE', '3101', 'Malformed syntax - transferState is not an allowed TransferState: RECEIVED, RESERVED, COMMITTED, ABORTED'],
      ['transfersPut', 'transferState', undefined, '3102', 'Missing mandatory element - transferState'],
      ['transfersPut', 'fulfilment', 'x'.repeat(42), '3101', 'Malformed syntax - fulfilment is not a valid IlpFulfilment'],
      ['error', 'errorInformation.errorCode', '0123', '3101', 'Malformed syntax - errorInformation.errorCode is not a valid ErrorCode'],
      ['error', 'errorInformation.errorCode', 5101, '3101', 'Malformed syntax - errorInformation.errorCode must be string'],
      ['error', 'errorInformation.errorDescription', '', '3101', 'Malformed syntax - errorInformation.errorDescription must have at least 1 character'],
      ['error', 'errorInformation.extensionList.extension', Array.from({ length: 17 }, () => ({ key: 'k', value: 'v' })), '3103', 'Too many elements - errorInformation.extensionList.extension has more than 16'],
      ['error', 'errorInformation.extensionList.extension', [{ key: '', value: 'v' }], '3101', 'Malformed syntax - errorInformation.extensionList.extension[0].key must have at least 1 character'],
      ['error', 'errorInformation.extensionList.extension', [], '3100', 'Generic validation error - errorInformation.extensionList.extension must NOT have fewer than 1 items'],
      ['quotesPost', 'amount.currency', 'XYZ', '3101', 'Malformed syntax - amount.currency is not an allowed Currency'],
      ['quotesPost', 'quoteId', TX.quoteId.toUpperCase(), '3101', 'Malformed syntax - quoteId is not a valid CorrelationId'],
      ['quotesPost', 'amountType', undefined, '3102', 'Missing mandatory element - amountType'],
      ['quotesPost', 'transactionType.initiatorType', undefined, '3102', 'Missing mandatory element - transactionType.initiatorType'],
      ['transfersPost', 'expiration', undefined, '3102', 'Missing mandatory element - expiration'],
      ['transfersPost', 'ilpPacket', 'AYIC+6w', '3101', 'Malformed syntax - ilpPacket is not a valid IlpPacket'],
      ['transfersPost', 'amount.amount', '-5', '3101', 'Malformed syntax - amount.amount is not a valid Amount'],
      ['transfersPatch', 'completedTimestamp', undefined, '3102', 'Missing mandatory element - completedTimestamp'],
      ['transfersPatch', 'transferState', 'COMPLETED', '3101', 'Malformed syntax - transferState is not an allowed TransferState: RECEIVED, RESERVED, COMMITTED, ABORTED'],
    ];
    for (const [kind, path, value, errorCode, description] of cases) {
      const problem = validate(kind, changed(kind, path, value));
      expect(problem, `${kind} ${path}`).not.toBeNull();
      expect(problem!.errorCode, `${kind} ${path}`).toBe(errorCode);
      expect(problem!.description, `${kind} ${path}`).toMatch(new RegExp(`^${description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      expect(Array.from(problem!.description).length).toBeLessThanOrEqual(128);
    }
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'text', 42, undefined]) expect(validate('transfersPut', body), JSON.stringify(body)).toEqual({ errorCode: '3101', description: 'Malformed syntax - body must be object' });
  });

  it("reads a 1.0 body's party name as 1.0 allows it", () => {
    const body = changed('partiesPut', 'party.name', 'Banda & Sons');
    expect(validate('partiesPut', body)).toMatchObject({ errorCode: '3101' });
    expect(validate('partiesPut', body, '1.1')).toMatchObject({ errorCode: '3101' });
    expect(validate('partiesPut', body, '1.0')).toBeNull();
    expect(validate('partiesPut', changed('partiesPut', 'party.name', ''), '1.0')).toMatchObject({ errorCode: '3101' });
  });
});
