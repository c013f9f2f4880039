// TOTP (RFC 6238) against the RFC's own test vectors, base32, the acceptance window, replay and
// recovery codes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  base32Decode,
  base32Encode,
  hotp,
  newRecoveryCodes,
  newTotpSecret,
  otpauthUri,
  recoveryCodeHash,
  totpStep,
  TOTP_STEP_SECONDS,
  verifyTotp,
} from '../../src/lib/totp.ts';

// RFC 6238 Appendix B: seeds of 20, 32 and 64 bytes for SHA-1, SHA-256 and SHA-512, 8 digits.
const SEED_SHA1 = Buffer.from('12345678901234567890');
const SEED_SHA256 = Buffer.from('12345678901234567890123456789012');
const SEED_SHA512 = Buffer.from('1234567890123456789012345678901234567890123456789012345678901234');
const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP', () => {
  it('matches every test vector of RFC 6238 Appendix B (SHA-1, SHA-256, SHA-512)', () => {
    for (const [seconds, sha1, sha256, sha512] of VECTORS) {
      const step = totpStep(seconds * 1000);
      expect(hotp(SEED_SHA1, step, 8, 'sha1')).toBe(sha1);
      expect(hotp(SEED_SHA256, step, 8, 'sha256')).toBe(sha256);
      expect(hotp(SEED_SHA512, step, 8, 'sha512')).toBe(sha512);
    }
  });

  it('matches RFC 4226 Appendix D (HOTP, 6 digits)', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expected.forEach((code, counter) => expect(hotp(SEED_SHA1, counter)).toBe(code));
  });

  it('round-trips base32 and refuses what is not base32', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(base32Decode(base32Encode(bytes))?.equals(Buffer.from(bytes))).toBe(true);
      }),
    );
    expect(base32Encode(Buffer.from('12345678901234567890'))).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq')).toEqual(Buffer.from('12345678901234567890'));
    expect(base32Decode('GEZ1')).toBeUndefined();
  });

  it('accepts a code one step either side of now, not two, and never the same step twice', () => {
    const secret = newTotpSecret();
    expect(base32Decode(secret)).toHaveLength(20);
    const now = Date.UTC(2026, 10, 25, 12, 0, 10);
    const step = totpStep(now);
    const code = (s: number) => hotp(base32Decode(secret)!, s);
    expect(verifyTotp(secret, code(step), now)).toBe(step);
    expect(verifyTotp(secret, code(step - 1), now)).toBe(step - 1);
    expect(verifyTotp(secret, code(step + 1), now)).toBe(step + 1);
    expect(verifyTotp(secret, code(step - 2), now)).toBeUndefined();
    expect(verifyTotp(secret, code(step + 2), now)).toBeUndefined();
    // Replay: once step was used, its code (and older ones) are refused.
    expect(verifyTotp(secret, code(step), now, step)).toBeUndefined();
    expect(verifyTotp(secret, code(step - 1), now, step)).toBeUndefined();
    expect(verifyTotp(secret, code(step + 1), now + TOTP_STEP_SECONDS * 1000, step)).toBe(step + 1);
  });

  it('refuses malformed codes and secrets without throwing', () => {
    const secret = newTotpSecret();
    for (const code of ['', '12345', '1234567', 'abcdef', '12 456', '１２３４５６']) expect(verifyTotp(secret, code, Date.now())).toBeUndefined();
    expect(verifyTotp('not base32!', '123456', Date.now())).toBeUndefined();
    expect(verifyTotp('', '123456', Date.now())).toBeUndefined();
  });

  it('writes the otpauth URI authenticator apps read', () => {
    expect(otpauthUri('OneKhusa Sandbox', 'chisomo@shop.mw', 'GEZDGNBVGY3TQOJQ')).toBe(
      'otpauth://totp/OneKhusa%20Sandbox:chisomo%40shop.mw?secret=GEZDGNBVGY3TQOJQ&issuer=OneKhusa+Sandbox&algorithm=SHA1&digits=6&period=30',
    );
  });

  it('makes distinct recovery codes without look-alike characters, hashed whatever their case or spacing', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-HJKMNP-Z2-9]{5}-[A-HJKMNP-Z2-9]{5}$/);
    const [code] = codes;
    expect(recoveryCodeHash(code.toLowerCase().replace('-', ' '))).toBe(recoveryCodeHash(code));
    expect(recoveryCodeHash(codes[1])).not.toBe(recoveryCodeHash(code));
  });
});
