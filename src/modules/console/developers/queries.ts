// What the developers pages read (issue 19): the merchant's API keys (never a secret or its hash),
// webhook subscriptions and the overview's figures (the delivery log is the webhooks module's:
// webhooks/delivery-log.ts). Every
// statement is scoped by merchant_account_number: another merchant's key, subscription or delivery
// is not found (the pages answer 404). Keys and subscriptions come from their modules'
// repositories, so the console reads what the API reads.
import type { Queryable } from '../../../db/pool.ts';
import { findApiKeyById, listApiKeys, type ApiKeyRow } from '../../api-keys/repository.ts';
import { findSubscription, listSubscriptions, type SubscriptionRow } from '../../webhooks/repository.ts';

// ---------------------------------------------------------------------------------------------
// API keys

/** A key as the console shows it: its public part and its state, never its secret (only a hash is stored anyway). */
export interface ApiKeyView {
  clientId: number;
  clientKey: string;
  statusCode: 'A' | 'I';
  capturedBy: string;
  dateCaptured: Date;
  expiryDate: Date | null;
  modifiedBy: string | null;
  dateModified: Date | null;
}

function keyView(k: ApiKeyRow): ApiKeyView {
  return {
    clientId: k.client_id,
    clientKey: k.client_key,
    statusCode: k.status_code,
    capturedBy: k.captured_by,
    dateCaptured: k.date_captured,
    expiryDate: k.expiry_date,
    modifiedBy: k.modified_by,
    dateModified: k.date_modified,
  };
}

/** The merchant's live keys (deleted ones are gone), oldest first, as GET /security/apiKeys/getAll lists them. */
export async function listKeys(db: Queryable, merchantAccountNumber: number): Promise<ApiKeyView[]> {
  return (await listApiKeys(db, merchantAccountNumber)).map(keyView);
}

/** One live key of the merchant by its id; undefined for another merchant's, a deleted or an unknown one. */
export async function findKey(db: Queryable, merchantAccountNumber: number, clientId: number): Promise<ApiKeyView | undefined> {
  const found = await findApiKeyById(db, merchantAccountNumber, clientId);
  return found ? keyView(found) : undefined;
}

/** The organisation of the merchant: a key pair gets tokens with it (POST /account/getAccessToken). */
export async function organisationOf(db: Queryable, merchantAccountNumber: number): Promise<string> {
  const { rows } = await db.query<{ organisation_id: string }>('select organisation_id from merchants where merchant_account_number = $1', [merchantAccountNumber]);
  if (!rows[0]) throw new Error(`merchant ${merchantAccountNumber} not found`);
  return rows[0].organisation_id.trim();
}

// ---------------------------------------------------------------------------------------------
// Webhook subscriptions

export type Subscription = SubscriptionRow;

export function listWebhookSubscriptions(db: Queryable, merchantAccountNumber: number): Promise<Subscription[]> {
  return listSubscriptions(db, merchantAccountNumber);
}

export function findWebhookSubscription(db: Queryable, merchantAccountNumber: number, webhookId: number): Promise<Subscription | undefined> {
  return findSubscription(db, merchantAccountNumber, { webhookId });
}

/** The overview's figures. */
export interface DevelopersSummary {
  activeKeys: number;
  inactiveKeys: number;
  subscriptions: number;
  failedDeliveries: number;
}

export async function developersSummary(db: Queryable, merchantAccountNumber: number): Promise<DevelopersSummary> {
  const { rows } = await db.query<DevelopersSummary>(
    `select (select count(*)::int from api_keys where merchant_account_number = $1 and date_deleted is null and status_code = 'A') as "activeKeys",
            (select count(*)::int from api_keys where merchant_account_number = $1 and date_deleted is null and status_code = 'I') as "inactiveKeys",
            (select count(*)::int from webhook_subscriptions where merchant_account_number = $1) as "subscriptions",
            (select count(*)::int from webhook_deliveries where merchant_account_number = $1 and status = 'failed') as "failedDeliveries"`,
    [merchantAccountNumber],
  );
  return rows[0];
}
