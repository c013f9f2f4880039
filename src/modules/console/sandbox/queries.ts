// Sandbox tools: what a simulated payment made (the collection, and the merchant's collection
// balance right after it, from the ledger), and the connectors a customer can pay from.
import type { Queryable } from '../../../db/pool.ts';
import { CustomPaymentBody } from '../../collections/schemas.ts';
import { findCollection, type CollectionRow } from '../../collections/repository.ts';
import { TimedAccountNumber } from '../../collections/schemas.ts';
import { listConnectors } from '../../connectors/repository.ts';

/** E11's amount range and the timed account number's form, from the API's own schemas. */
export const SANDBOX_LIMITS = {
  amount: (CustomPaymentBody.properties.transactionAmount as unknown as { 'x-money': { min: string; max: string } })['x-money'],
  timedAccountPattern: new RegExp(TimedAccountNumber.pattern ?? '^.*$'),
} as const;

export interface ConnectorChoice {
  connectorId: number;
  connectorName: string;
  /** M wallet, B bank. */
  channelCode: string;
}

/** The connectors a customer can pay from (active, collections allowed), as the services check them. */
export async function collectionConnectors(db: Queryable): Promise<ConnectorChoice[]> {
  return (await listConnectors(db, { activeInstitutionsOnly: true }))
    .filter((c) => c.is_collection_allowed)
    .map((c) => ({ connectorId: c.connector_id, connectorName: c.connector_name, channelCode: c.channel_code }));
}

export interface PaymentResult {
  collection: CollectionRow;
  /** The merchant's collection balance just after this payment's ledger transfer. */
  balanceAfterMinor: number;
  /** The request to pay it paid, if any. */
  requestId: number | null;
}

/**
 * A collection of the merchant with its collection balance right after it: the balance now
 * (ledger_accounts.balance_minor, which ledger_post keeps equal to the sum of its entries) less
 * the account's entries made after the payment's last one, read in one statement (one snapshot).
 * The later entries are few and found along the primary key. Entry ids follow the order the
 * transfers reached the balance, except for two transfers racing between ledger_post's insert and
 * its balance update (a simulated payment racing another movement of the same account): then the
 * figure is the balance before or after the other one. Undefined when the reference is unknown or
 * another merchant's.
 */
export async function paymentResult(db: Queryable, merchantAccountNumber: number, transactionReferenceNumber: string): Promise<PaymentResult | undefined> {
  if (!/^[A-Z0-9]{12}$/.test(transactionReferenceNumber)) return undefined;
  const collection = await findCollection(db, merchantAccountNumber, transactionReferenceNumber);
  if (!collection) return undefined;
  const { rows } = await db.query<{ after_minor: string | number | null }>(
    `with account as (
       select a.account_id, a.balance_minor
         from ledger_accounts a
        where a.merchant_account_number = $1 and a.kind = 'collection' and a.currency_code = $3
     ), payment as (
       select max(e.entry_id) as last_entry
         from ledger_transfers t join ledger_entries e on e.transfer_id = t.transfer_id
        where t.merchant_account_number = $1 and t.reference = $2 and t.transfer_type in ('payment', 'payrequest')
     )
     select account.balance_minor - coalesce((
              select sum(e.amount_minor) from ledger_entries e
               where e.entry_id > (select last_entry from payment) and e.account_id = account.account_id), 0) as after_minor
       from account`,
    [merchantAccountNumber, transactionReferenceNumber, collection.currency_code],
  );
  const after = rows[0]?.after_minor;
  if (after === null || after === undefined) throw new Error(`merchant ${merchantAccountNumber} has no collection account in ${collection.currency_code}`);
  return { collection, balanceAfterMinor: Number(after), requestId: collection.request_id === null ? null : Number(collection.request_id) };
}

/** The most e-mails the outbox page lists (the newest); older ones are the operator's (GET /admin/v1/emails). */
export const OUTBOX_LIMIT = 50;

export interface HeldEmail {
  emailId: number;
  recipient: string;
  subject: string;
  bodyText: string;
  createdAt: Date;
}

/**
 * The statuses the outbox shows: held, and pending too when no SMTP_URL is configured (the worker
 * is about to hold it; the page need not wait for it). A sent or failed message's links are
 * blanked (email/repository.ts) and it was someone's mail: never shown here.
 */
function shownStatuses(smtpConfigured: boolean): string[] {
  return smtpConfigured ? ['held'] : ['held', 'pending'];
}

/** The merchant's held e-mails, newest first (email_outbox_merchant_idx, migrations/0027). */
export async function listHeldEmails(db: Queryable, merchantAccountNumber: number, smtpConfigured: boolean): Promise<HeldEmail[]> {
  const { rows } = await db.query<{ email_id: string; recipient: string; subject: string; created_at: Date }>(
    `select email_id, recipient, subject, created_at from email_outbox
      where merchant_account_number = $1 and status = any($2)
      order by created_at desc, email_id desc limit $3`,
    [merchantAccountNumber, shownStatuses(smtpConfigured), OUTBOX_LIMIT],
  );
  return rows.map((r) => ({ emailId: Number(r.email_id), recipient: r.recipient, subject: r.subject, bodyText: '', createdAt: r.created_at }));
}

/** One held e-mail of the merchant; undefined for another merchant's, a sent one or none. */
export async function findHeldEmail(db: Queryable, merchantAccountNumber: number, emailId: number, smtpConfigured: boolean): Promise<HeldEmail | undefined> {
  const { rows } = await db.query<{ email_id: string; recipient: string; subject: string; body_text: string; created_at: Date }>(
    `select email_id, recipient, subject, body_text, created_at from email_outbox
      where merchant_account_number = $1 and email_id = $2 and status = any($3)`,
    [merchantAccountNumber, emailId, shownStatuses(smtpConfigured)],
  );
  const r = rows[0];
  return r && { emailId: Number(r.email_id), recipient: r.recipient, subject: r.subject, bodyText: r.body_text, createdAt: r.created_at };
}
