// SQL for API key pairs. Secrets are stored only as SHA-256 hashes.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../db/pool.ts';
import { randomAlnum } from '../../lib/ids.ts';
import type { MerchantStatus } from '../merchants/repository.ts';

export const CLIENT_KEY_LENGTH = 30;
export const CLIENT_SECRET_LENGTH = 45;

/** An API key pair's status (migrations/0001): active, inactive. A deleted key is inactive too (date_deleted set). */
export type ApiKeyStatus = 'A' | 'I';

/** The API key statuses by name: code compares a key's status_code with these, never with the letter. */
export const API_KEY = { active: 'A', inactive: 'I' } as const satisfies Record<string, ApiKeyStatus>;

export interface ApiKeyRow {
  client_id: number;
  merchant_account_number: number;
  organisation_id: string;
  client_key: string;
  secret_hash: Buffer;
  status_code: ApiKeyStatus;
  captured_by: string;
  date_captured: Date;
  expiry_date: Date | null;
  modified_by: string | null;
  date_modified: Date | null;
}

export function newKeyPair(): { key: string; secret: string } {
  return { key: randomAlnum(CLIENT_KEY_LENGTH), secret: randomAlnum(CLIENT_SECRET_LENGTH) };
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function secretMatches(secret: string, hash: Buffer): boolean {
  return timingSafeEqual(hashSecret(secret), hash);
}

export async function insertApiKey(
  q: Queryable,
  k: { merchantAccountNumber: number; organisationId: string; clientKey: string; secret: string; capturedBy: string; expiryDate: Date | null },
): Promise<ApiKeyRow> {
  const { rows } = await q.query<ApiKeyRow>(
    `insert into api_keys (merchant_account_number, organisation_id, client_key, secret_hash, captured_by, expiry_date)
     values ($1, $2, $3, $4, $5, $6) returning *`,
    [k.merchantAccountNumber, k.organisationId, k.clientKey, hashSecret(k.secret), k.capturedBy, k.expiryDate],
  );
  return rows[0];
}

export async function listApiKeys(q: Queryable, merchantAccountNumber: number): Promise<ApiKeyRow[]> {
  const { rows } = await q.query<ApiKeyRow>(
    'select * from api_keys where merchant_account_number = $1 and date_deleted is null order by client_id',
    [merchantAccountNumber],
  );
  return rows;
}

export async function findApiKey(q: Queryable, merchantAccountNumber: number, clientKey: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await q.query<ApiKeyRow>(
    'select * from api_keys where merchant_account_number = $1 and client_key = $2 and date_deleted is null',
    [merchantAccountNumber, clientKey],
  );
  return rows[0];
}

export async function findApiKeyById(q: Queryable, merchantAccountNumber: number, clientId: number): Promise<ApiKeyRow | undefined> {
  const { rows } = await q.query<ApiKeyRow>('select * from api_keys where merchant_account_number = $1 and client_id = $2 and date_deleted is null', [merchantAccountNumber, clientId]);
  return rows[0];
}

/**
 * The merchant's live key with this client key: used to issue tokens. A client key is unique
 * within its merchant (api_keys_client_key_live, migration 0030), and the token request names the
 * merchant.
 */
export async function findLiveKeyByClientKey(
  q: Queryable,
  merchantAccountNumber: number,
  clientKey: string,
): Promise<(ApiKeyRow & { merchant_status: MerchantStatus; merchant_is_demo: boolean }) | undefined> {
  const { rows } = await q.query<ApiKeyRow & { merchant_status: MerchantStatus; merchant_is_demo: boolean }>(
    `select k.*, m.status_code as merchant_status, m.is_demo as merchant_is_demo
       from api_keys k join merchants m on m.merchant_account_number = k.merchant_account_number
      where k.merchant_account_number = $1 and k.client_key = $2 and k.date_deleted is null`,
    [merchantAccountNumber, clientKey],
  );
  return rows[0];
}

export async function setApiKeyStatus(q: Queryable, merchantAccountNumber: number, clientKey: string, status: ApiKeyStatus, changedBy: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await q.query<ApiKeyRow>(
    `update api_keys set status_code = $3, modified_by = $4, date_modified = now()
      where merchant_account_number = $1 and client_key = $2 and date_deleted is null returning *`,
    [merchantAccountNumber, clientKey, status, changedBy],
  );
  return rows[0];
}

export async function deleteApiKey(q: Queryable, merchantAccountNumber: number, clientKey: string, deletedBy: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await q.query<ApiKeyRow>(
    `update api_keys set date_deleted = now(), deleted_by = $3, status_code = 'I'
      where merchant_account_number = $1 and client_key = $2 and date_deleted is null returning *`,
    [merchantAccountNumber, clientKey, deletedBy],
  );
  return rows[0];
}

