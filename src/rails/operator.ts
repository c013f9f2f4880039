// What an operator reads about the rails (GET /admin/v1/rails…, `npm run cli -- rails …`): one
// payout's way over its rail with every message sent and received (only the routing headers are
// kept, never a signature or a key: messages.ts), and the payouts whose outcome is not known yet
// past their expiry, which wait for the switch's answer and may need someone to look.
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

/** One payout's rail record and messages, oldest first; null when no rail carried it. */
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
      where p.transaction_reference_number = $1`,
    [transactionReferenceNumber],
  );
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
