// The console's two-factor store (src/modules/console/security/two-factor.ts, migration 0016) on the real
// database: enrolment in two steps, codes and their replay, recovery codes spent once (also under
// concurrent use), the sealed secret, and one merchant's user never reaching another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpStep, TOTP_STEP_SECONDS } from '../../../src/lib/totp.ts';
import { beginEnrolment, confirmEnrolment, openSecret, removeTwoFactor, sealSecret, twoFactorKey, twoFactorStatus, verifySecondFactor, type TwoFactorUser } from '../../../src/modules/console/security/two-factor.ts';
import { newMerchant, startTestApp, type TestApp } from '../../helpers.ts';
import { addMerchantUser } from '../../money-ops.ts';

let t: TestApp;
let key: Buffer;
let seq = 0;

beforeAll(async () => {
  t = await startTestApp();
  key = twoFactorKey(t.deps.jwtSecret);
});
afterAll(async () => {
  await t?.close();
});

async function newUser(): Promise<TwoFactorUser> {
  const who = await newMerchant(t);
  const userId = await addMerchantUser(t, who, `approver${++seq}@shop.mw`, 4);
  return { merchantAccountNumber: who.merchantAccountNumber, userId };
}

const codeAt = (secret: string, atMs: number) => hotp(base32Decode(secret)!, totpStep(atMs));

async function enrolled(user: TwoFactorUser, now: Date): Promise<{ secret: string; recovery: string[] }> {
  const enrolment = (await beginEnrolment(t.db, key, user, 'approver@shop.mw', 'OneKhusa Sandbox', now))!;
  const recovery = (await confirmEnrolment(t.db, key, user, codeAt(enrolment.secretBase32, now.getTime()), now))!;
  return { secret: enrolment.secretBase32, recovery };
}

describe('console two-factor', () => {
  it('enrols in two steps: nothing is asked until a code proves the scanned secret', async () => {
    const user = await newUser();
    const now = new Date('2026-11-25T10:00:05Z');
    const enrolment = await beginEnrolment(t.db, key, user, 'approver@shop.mw', 'OneKhusa Sandbox', now);
    expect(enrolment?.otpauthUri).toMatch(/^otpauth:\/\/totp\/OneKhusa%20Sandbox:approver%40shop\.mw\?secret=[A-Z2-7]{32}&/);
    expect(await twoFactorStatus(t.db, user)).toEqual({ enrolled: false, recoveryCodesLeft: 0 });
    expect(await confirmEnrolment(t.db, key, user, '000000', now)).toBeUndefined();
    const codes = await confirmEnrolment(t.db, key, user, codeAt(enrolment!.secretBase32, now.getTime()), now);
    expect(codes).toHaveLength(10);
    expect(await twoFactorStatus(t.db, user)).toEqual({ enrolled: true, recoveryCodesLeft: 10 });
    // A confirmed authenticator cannot be replaced by starting again.
    expect(await beginEnrolment(t.db, key, user, 'approver@shop.mw', 'OneKhusa Sandbox', now)).toBeUndefined();
    // Only hashes are stored.
    const { rows } = await t.db.query<{ code_hash: string }>('select code_hash from console_recovery_codes where user_id = $1', [user.userId]);
    expect(rows.map((r) => r.code_hash)).not.toContain(codes![0]);
  });

  it('accepts a current code once, then refuses the same code and older ones', async () => {
    const user = await newUser();
    const start = new Date('2026-11-25T11:00:05Z');
    const { secret } = await enrolled(user, start);
    const later = new Date(start.getTime() + 2 * TOTP_STEP_SECONDS * 1000);
    const code = codeAt(secret, later.getTime());
    expect(await verifySecondFactor(t.db, key, user, code, later)).toBe('code');
    expect(await verifySecondFactor(t.db, key, user, code, later)).toBeUndefined();
    expect(await verifySecondFactor(t.db, key, user, codeAt(secret, start.getTime()), later)).toBeUndefined();
    expect(await verifySecondFactor(t.db, key, user, '12345', later)).toBeUndefined();
    const next = new Date(later.getTime() + TOTP_STEP_SECONDS * 1000);
    expect(await verifySecondFactor(t.db, key, user, ` ${codeAt(secret, next.getTime())} `, next)).toBe('code');
  });

  it('spends a recovery code once, whatever its case or spacing, even when two requests race for it', async () => {
    const user = await newUser();
    const now = new Date('2026-11-25T12:00:05Z');
    const { recovery } = await enrolled(user, now);
    const typed = recovery[0].toLowerCase().replace('-', ' ');
    const raced = await Promise.all([verifySecondFactor(t.db, key, user, typed, now), verifySecondFactor(t.db, key, user, recovery[0], now)]);
    expect(raced.filter((r) => r === 'recovery')).toHaveLength(1);
    expect(raced.filter((r) => r === undefined)).toHaveLength(1);
    expect((await twoFactorStatus(t.db, user)).recoveryCodesLeft).toBe(9);
    expect(await verifySecondFactor(t.db, key, user, 'ABCDE-FGHJK', now)).toBeUndefined();
  });

  it('keeps the secret sealed: another key, or a changed byte, opens nothing', async () => {
    const sealed = sealSecret(key, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(openSecret(key, sealed)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(openSecret(twoFactorKey(new TextEncoder().encode('another-secret-of-at-least-32-characters')), sealed)).toBeUndefined();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1] ^= 1;
    expect(openSecret(key, altered)).toBeUndefined();
    const user = await newUser();
    await enrolled(user, new Date());
    const { rows } = await t.db.query<{ secret_sealed: Buffer }>('select secret_sealed from console_two_factor where user_id = $1', [user.userId]);
    expect(rows[0].secret_sealed.toString('latin1')).not.toMatch(/[A-Z2-7]{32}/);
  });

  it('never lets one merchant\'s user reach another\'s authenticator, and removes one whole', async () => {
    const a = await newUser();
    const b = await newUser();
    const now = new Date('2026-11-25T13:00:05Z');
    const { secret, recovery } = await enrolled(a, now);
    const foreign = { merchantAccountNumber: b.merchantAccountNumber, userId: a.userId };
    expect(await verifySecondFactor(t.db, key, foreign, codeAt(secret, now.getTime() + 30_000), new Date(now.getTime() + 30_000))).toBeUndefined();
    expect(await verifySecondFactor(t.db, key, foreign, recovery[1], now)).toBeUndefined();
    expect(await removeTwoFactor(t.db, foreign)).toBe(false);
    expect(await removeTwoFactor(t.db, a)).toBe(true);
    expect(await twoFactorStatus(t.db, a)).toEqual({ enrolled: false, recoveryCodesLeft: 0 });
    expect(await verifySecondFactor(t.db, key, a, recovery[1], now)).toBeUndefined();
  });
});
