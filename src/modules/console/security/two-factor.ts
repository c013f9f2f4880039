// Two-factor sign-in for the console: a TOTP authenticator per merchant user (src/lib/totp.ts),
// enrolled in two steps (the user scans the secret, then proves it with a code), and ten one-time
// recovery codes shown once at enrolment. The secret is sealed with AES-256-GCM under a key derived
// from JWT_SECRET (HKDF), so the database alone cannot make codes (migration 0016).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Queryable } from '../../../db/pool.ts';
import { withTransaction, type Db } from '../../../db/pool.ts';
import { newRecoveryCodes, newTotpSecret, otpauthUri, recoveryCodeHash, verifyTotp } from '../../../lib/totp.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The sealing key: 32 bytes derived from the service's secret, for this purpose only. */
export function twoFactorKey(serviceSecret: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', serviceSecret, Buffer.alloc(0), 'onekhusa console totp secret v1', 32));
}

/** iv ‖ tag ‖ ciphertext. */
export function sealSecret(key: Buffer, secretBase32: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secretBase32, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** The secret, or undefined when the seal was not made with this key or was altered. */
export function openSecret(key: Buffer, sealed: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export interface TwoFactorUser {
  merchantAccountNumber: number;
  userId: string;
}

export interface TwoFactorStatus {
  /** A confirmed authenticator: sign-in asks for a code. */
  enrolled: boolean;
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(q: Queryable, user: TwoFactorUser): Promise<TwoFactorStatus> {
  const { rows } = await q.query<{ enrolled: boolean; left: number }>(
    `select t.confirmed_at is not null as enrolled,
            (select count(*)::int from console_recovery_codes r
              where r.merchant_account_number = t.merchant_account_number and r.user_id = t.user_id and r.used_at is null) as left
       from console_two_factor t where t.merchant_account_number = $1 and t.user_id = $2`,
    [user.merchantAccountNumber, user.userId],
  );
  return rows[0] ? { enrolled: rows[0].enrolled, recoveryCodesLeft: rows[0].left } : { enrolled: false, recoveryCodesLeft: 0 };
}

export interface Enrolment {
  secretBase32: string;
  otpauthUri: string;
}

/**
 * Step 1: a new secret for the user to scan, replacing an unconfirmed one. Undefined when the user
 * already has a confirmed authenticator: it must be removed first (with a code), so a stolen
 * session cannot quietly swap it.
 */
export async function beginEnrolment(db: Db, key: Buffer, user: TwoFactorUser, accountLabel: string, issuer: string, now: Date): Promise<Enrolment | undefined> {
  const secretBase32 = newTotpSecret();
  const { rowCount } = await db.query(
    `insert into console_two_factor (merchant_account_number, user_id, secret_sealed, created_at)
     values ($1, $2, $3, $4)
     on conflict (merchant_account_number, user_id) do update
        set secret_sealed = excluded.secret_sealed, created_at = excluded.created_at, last_used_step = -1
      where console_two_factor.confirmed_at is null`,
    [user.merchantAccountNumber, user.userId, sealSecret(key, secretBase32), now],
  );
  if (rowCount !== 1) return undefined;
  return { secretBase32, otpauthUri: otpauthUri(issuer, accountLabel, secretBase32) };
}

/**
 * The enrolment under way (a secret not yet confirmed), to show again after a wrong code; undefined
 * when there is none or it cannot be opened with this key.
 */
export async function pendingEnrolment(q: Queryable, key: Buffer, user: TwoFactorUser, accountLabel: string, issuer: string): Promise<Enrolment | undefined> {
  const { rows } = await q.query<{ secret_sealed: Buffer }>(
    'select secret_sealed from console_two_factor where merchant_account_number = $1 and user_id = $2 and confirmed_at is null',
    [user.merchantAccountNumber, user.userId],
  );
  const secretBase32 = rows[0] ? openSecret(key, rows[0].secret_sealed) : undefined;
  return secretBase32 === undefined ? undefined : { secretBase32, otpauthUri: otpauthUri(issuer, accountLabel, secretBase32) };
}

interface SecretRow {
  secret_sealed: Buffer;
  confirmed_at: Date | null;
  last_used_step: number;
}

async function lockSecret(tx: pg.PoolClient, user: TwoFactorUser): Promise<SecretRow | undefined> {
  const { rows } = await tx.query<SecretRow>(
    'select secret_sealed, confirmed_at, last_used_step from console_two_factor where merchant_account_number = $1 and user_id = $2 for update',
    [user.merchantAccountNumber, user.userId],
  );
  return rows[0];
}

async function useStep(tx: pg.PoolClient, user: TwoFactorUser, step: number, confirmAt?: Date): Promise<void> {
  await tx.query(
    `update console_two_factor set last_used_step = $3, confirmed_at = coalesce(confirmed_at, $4)
      where merchant_account_number = $1 and user_id = $2`,
    [user.merchantAccountNumber, user.userId, step, confirmAt ?? null],
  );
}

/**
 * Step 2: the user proves the scanned secret with a code. Answers the recovery codes (shown once,
 * kept only as hashes), or undefined for a wrong code or no enrolment under way.
 */
export async function confirmEnrolment(
  db: Db,
  key: Buffer,
  user: TwoFactorUser,
  code: string,
  now: Date,
  /** Run in the same transaction when the code is right (the caller ends other sessions, writes the audit entry). */
  alsoOnConfirm?: (tx: pg.PoolClient) => Promise<void>,
): Promise<string[] | undefined> {
  return withTransaction(db, async (tx) => {
    const row = await lockSecret(tx, user);
    if (!row || row.confirmed_at) return undefined;
    const secret = openSecret(key, row.secret_sealed);
    const step = secret === undefined ? undefined : verifyTotp(secret, code.trim(), now.getTime(), row.last_used_step);
    if (step === undefined) return undefined;
    await useStep(tx, user, step, now);
    const codes = newRecoveryCodes();
    await tx.query('delete from console_recovery_codes where merchant_account_number = $1 and user_id = $2', [user.merchantAccountNumber, user.userId]);
    await tx.query(
      `insert into console_recovery_codes (merchant_account_number, user_id, code_hash)
       select $1, $2, unnest($3::text[])`,
      [user.merchantAccountNumber, user.userId, codes.map(recoveryCodeHash)],
    );
    await alsoOnConfirm?.(tx);
    return codes;
  });
}

/**
 * The second factor at sign-in: a current code from the authenticator (not one already used) or
 * an unused recovery code, which is used up. Locked, so two requests cannot both spend one code.
 */
export async function verifySecondFactor(db: Db, key: Buffer, user: TwoFactorUser, input: string, now: Date): Promise<'code' | 'recovery' | undefined> {
  return withTransaction(db, async (tx) => {
    const row = await lockSecret(tx, user);
    if (!row?.confirmed_at) return undefined;
    const typed = input.trim();
    if (/^\d{6}$/.test(typed)) {
      const secret = openSecret(key, row.secret_sealed);
      const step = secret === undefined ? undefined : verifyTotp(secret, typed, now.getTime(), row.last_used_step);
      if (step === undefined) return undefined;
      await useStep(tx, user, step);
      return 'code';
    }
    const { rowCount } = await tx.query(
      `update console_recovery_codes set used_at = $4
        where merchant_account_number = $1 and user_id = $2 and code_hash = $3 and used_at is null`,
      [user.merchantAccountNumber, user.userId, recoveryCodeHash(typed), now],
    );
    return rowCount === 1 ? 'recovery' : undefined;
  });
}

/** Removes the authenticator and its recovery codes (the caller has checked a second factor). */
export async function removeTwoFactor(q: Queryable, user: TwoFactorUser): Promise<boolean> {
  const { rowCount } = await q.query('delete from console_two_factor where merchant_account_number = $1 and user_id = $2', [user.merchantAccountNumber, user.userId]);
  return rowCount === 1;
}
