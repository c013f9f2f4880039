// What an operator reads about the rails (GET /admin/v1/rails…, `npm run cli -- rails …`): one
// payout's or collection's way over its rail with every message sent and received (only the
// routing headers are kept, never a signature or a key: messages.ts), and the payouts whose
// outcome is not known yet past their expiry, which wait for the switch's answer and may need
// someone to look.
import type { Db } from '../db/pool.ts';

export interface RailPayoutTraffic {
  transactionReferenceNumber: string;
  merchantAccountNumber: number;
  transactionStatusCode: string;
  responseCode: string | null;
  responseMessage: string | null;
  rail: string;
  phase: string;
  transferId: string;
  quoteId: string;
  payeeFsp: string | null;
  partyName: string | null;
  nameMatches: boolean | null;
  expiresAt: string | null;
  askedAt: string | null;
  messages: { at: string; direction: string; method: string; path: string; httpStatus: number | null; headers: Record<string, string>; body: unknown; outcome: string }[];
}

/**
 * One payout's rail record and messages, oldest first; null when no rail carried it. Found by its
 * reference alone, across merchants: references are unique per merchant in the database (0030)
 * and distinct service-wide by how they are drawn (payout_reference_seq), so a second payout with
 * the same reference is refused loudly rather than one of them shown.
 */
export async function payoutTraffic(db: Db, transactionReferenceNumber: string): Promise<RailPayoutTraffic | null> {
  const { rows } = await db.query<RailPayoutTraffic>(
    `select p.transaction_reference_number as "transactionReferenceNumber", p.merchant_account_number as "merchantAccountNumber",
            p.status_code as "transactionStatusCode", p.response_code as "responseCode", p.response_message as "responseMessage",
            r.rail, r.phase, r.transfer_id as "transferId", r.quote_id as "quoteId", r.payee_fsp as "payeeFsp", r.party_name as "partyName",
            r.name_matches as "nameMatches", to_json(r.expires_at)#>>'{}' as "expiresAt", to_json(r.asked_at)#>>'{}' as "askedAt",
            coalesce((select json_agg(json_build_object('at', m.created_at, 'direction', m.direction, 'method', m.method, 'path', m.path,
                                                        'httpStatus', m.http_status, 'headers', m.headers, 'body', m.body, 'outcome', m.outcome) order by m.message_id)
                        from rail_messages m where m.merchant_account_number = r.merchant_account_number and m.payout_id = r.payout_id), '[]') as messages
       from payouts p
       join rail_payouts r on r.merchant_account_number = p.merchant_account_number and r.payout_id = p.payout_id
      where p.transaction_reference_number = $1
      limit 2`,
    [transactionReferenceNumber],
  );
  if (rows.length > 1) {
    throw new Error(`payout reference ${transactionReferenceNumber} names payouts of merchants ${rows.map((r) => r.merchantAccountNumber).join(' and ')}`);
  }
  return rows[0] ?? null;
}

export interface UnknownPayout {
  transactionReferenceNumber: string;
  merchantAccountNumber: number;
  rail: string;
  transferId: string;
  amountMinor: number;
  expiresAt: string;
  askedAt: string | null;
  secondsPastExpiry: number;
}

/** Payouts sent over a rail whose outcome is still unknown past their expiry, oldest first. */
export async function unknownPayouts(db: Db, limit: number): Promise<UnknownPayout[]> {
  const { rows } = await db.query<UnknownPayout>(
    `select p.transaction_reference_number as "transactionReferenceNumber", r.merchant_account_number as "merchantAccountNumber", r.rail,
            r.transfer_id as "transferId", p.amount_minor::integer as "amountMinor", to_json(r.expires_at)#>>'{}' as "expiresAt",
            to_json(r.asked_at)#>>'{}' as "askedAt", floor(extract(epoch from now() - r.expires_at))::integer as "secondsPastExpiry"
       from rail_payouts r
       join payouts p on p.merchant_account_number = r.merchant_account_number and p.payout_id = r.payout_id
      where r.phase = 'transfer' and r.expires_at < now()
      order by r.expires_at limit $1`,
    [limit],
  );
  return rows;
}

export interface RailCollectionTraffic {
  /** The collection credited; null while the transfer is not committed (or never was). */
  transactionReferenceNumber: string | null;
  merchantAccountNumber: number;
  collectionStatusCode: string | null;
  rail: string;
  phase: string;
  transferId: string | null;
  quoteId: string;
  transactionId: string;
  payerFsp: string;
  partyIdType: string;
  partyIdentifier: string;
  amountMinor: number;
  currencyCode: string;
  transferExpiresAt: string | null;
  transferVersion: string | null;
  fulfilmentSentAt: string | null;
  askedAt: string | null;
  messages: RailPayoutTraffic['messages'];
}

/**
 * The routing headers of a stored message, again (they are the only ones stored: messages.ts; the
 * view does not rely on it), and its body without the ILP fulfilment while the transfer is not
 * committed: until then it is the secret that completes the payer's transfer.
 */
const SHOWN_MESSAGE = `json_build_object('at', m.created_at, 'direction', m.direction, 'method', m.method, 'path', m.path, 'httpStatus', m.http_status,
         'headers', (select coalesce(jsonb_object_agg(h.key, h.value), '{}') from jsonb_each(m.headers) h
                      where h.key in ('fspiop-source', 'fspiop-destination', 'date', 'content-type')),
         'body', case when rc.phase <> 'committed' and jsonb_typeof(m.body) = 'object' then m.body - 'fulfilment' else m.body end,
         'outcome', m.outcome)`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One inbound transfer and its messages, oldest first, found by the collection it credited
 * (its transaction reference number) or by its transfer id (one never credited, as an exception
 * names it); null when there is none. By reference, across merchants: references are unique per
 * merchant in the database (0030) and distinct service-wide by how they are drawn (12 random
 * characters); a reference two merchants shared would fail the scalar subquery below ("more than
 * one row"), never show the wrong one.
 */
export async function collectionTraffic(db: Db, referenceOrTransferId: string): Promise<RailCollectionTraffic | null> {
  const byTransfer = UUID.test(referenceOrTransferId);
  const { rows } = await db.query<RailCollectionTraffic>(
    `select c.transaction_reference_number as "transactionReferenceNumber", rc.merchant_account_number as "merchantAccountNumber",
            c.status_code as "collectionStatusCode", rc.rail, rc.phase, rc.transfer_id as "transferId", rc.quote_id as "quoteId",
            rc.transaction_id as "transactionId", rc.payer_fsp as "payerFsp", rc.party_id_type as "partyIdType", rc.party_identifier as "partyIdentifier",
            rc.amount_minor as "amountMinor", rc.currency_code as "currencyCode", to_json(rc.transfer_expires_at)#>>'{}' as "transferExpiresAt",
            rc.transfer_version as "transferVersion", to_json(rc.fulfilment_sent_at)#>>'{}' as "fulfilmentSentAt", to_json(rc.asked_at)#>>'{}' as "askedAt",
            coalesce((select json_agg(${SHOWN_MESSAGE} order by m.message_id)
                        from rail_messages m where m.merchant_account_number = rc.merchant_account_number and m.inbound_id = rc.inbound_id), '[]') as messages
       from rail_collections rc
       left join collections c on c.merchant_account_number = rc.merchant_account_number and c.collection_id = rc.collection_id
      where ${byTransfer
        ? 'rc.transfer_id = $1::uuid'
        : `(rc.merchant_account_number, rc.collection_id) = (select merchant_account_number, collection_id from collections where transaction_reference_number = $1)`}
      order by rc.inbound_id desc limit 1`,
    [referenceOrTransferId],
  );
  return rows[0] ?? null;
}
