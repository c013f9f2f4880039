// Values unique across merchants, held by claims tables (migration 0031, docs/scaling.md section 4,
// group C): a payment account number, a funding's bank reference, an invitation's token. Each is
// claimed in the transaction that writes its row; a race between two merchants ends with one
// claim; each lookup by the value finds its merchant through the claim.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/db/pool.ts';
import { findPayableAccount } from '../../src/modules/collections/rail-payments.ts';
import { insertMerchant, insertPaymentAccountClaim } from '../../src/modules/merchants/repository.ts';
import { ADMIN_TOKEN, BASE, clientError, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';

const OPS = 'treasury@onekhusa.example';
const NBM = 212188;

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  a = await newMerchant(t, { accountName: 'Claims A' });
  b = await newMerchant(t, { accountName: 'Claims B' });
});

afterAll(async () => {
  await t?.close();
});

const today = () => new Date().toISOString().slice(0, 10);

function fund(merchantAccountNumber: number, body: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: `/admin/v1/merchants/${merchantAccountNumber}/fundings`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body });
}

async function disbursement(m: TestMerchant): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, headers: m.auth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().disbursmentBalance as number;
}

describe('payment account numbers', () => {
  it('are claimed with the merchant, and E11 and the rail find the merchant through the claim', async () => {
    const { rows } = await t.db.query('select owner_merchant_account_number from payment_account_claims where payment_account_number = $1', [a.paymentAccountNumber]);
    expect(rows).toEqual([{ owner_merchant_account_number: a.merchantAccountNumber }]);

    const paid = await t.app.inject({
      method: 'POST',
      url: `${BASE}/collections/addFakeCustomPayment`,
      headers: a.auth,
      payload: { beneficiaryAccountNumber: a.paymentAccountNumber, connectorId: NBM, transactionAmount: 1000, createdBy: OPS },
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().beneficiary).toMatchObject({ accountNumber: a.paymentAccountNumber, accountName: 'Claims A' });
    // Another merchant's number, named with A's token: not A's, 404 as before.
    const foreign = await t.app.inject({
      method: 'POST',
      url: `${BASE}/collections/addFakeCustomPayment`,
      headers: a.auth,
      payload: { beneficiaryAccountNumber: b.paymentAccountNumber, connectorId: NBM, transactionAmount: 1000, createdBy: OPS },
    });
    expect(clientError(foreign, 404).detail).toContain(b.paymentAccountNumber);

    expect(await findPayableAccount(t.db, b.paymentAccountNumber)).toMatchObject({ kind: 'payment', merchant: { merchant_account_number: b.merchantAccountNumber } });
    expect(await findPayableAccount(t.db, '9999999999999')).toBeUndefined();
  });

  it('go to exactly one of two merchants racing for the same number (the claim\'s primary key decides)', async () => {
    const number = '9310000000777';
    const organisation = a.organisationId;
    const attempt = (merchantAccountNumber: number) =>
      withTransaction(t.db, async (tx) => {
        await insertPaymentAccountClaim(tx, number, merchantAccountNumber);
        await insertMerchant(tx, {
          merchant_account_number: merchantAccountNumber,
          organisation_id: organisation,
          account_name: `Racer ${merchantAccountNumber}`,
          currency_code: 'MWK',
          level_number: 1,
          payment_account_number: number,
          is_demo: false,
          captured_by: OPS,
        });
      });
    const outcomes = await Promise.allSettled([attempt(31000101), attempt(31000102)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    // The loser's error is a unique violation, which createMerchant retries with new numbers.
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: '23505', constraint: 'payment_account_claims_pkey' } });
    const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from merchants where payment_account_number = $1', [number]);
    expect(rows[0].n).toBe(1);
  });
});

describe('bank references of fundings', () => {
  it('refuse a receipt recorded for one merchant to another (409 naming the first), and replay it to the first', async () => {
    const body = { amount: '1500.00', bankReference: 'FT-CLAIM-0001', receivedOn: today(), recordedBy: OPS };
    const first = await fund(a.merchantAccountNumber, body);
    expect(first.statusCode, first.body).toBe(201);
    const { rows } = await t.db.query('select owner_merchant_account_number, funding_id from funding_claims where bank_reference = $1', ['FT-CLAIM-0001']);
    expect(rows).toEqual([{ owner_merchant_account_number: a.merchantAccountNumber, funding_id: first.json().fundingId }]);

    const other = clientError(await fund(b.merchantAccountNumber, { ...body, bankReference: 'ft-claim-0001' }), 409);
    expect(other.errorCode).toBe('E906');
    expect(other.detail).toContain('FT-CLAIM-0001');
    expect(other.detail).toContain(String(a.merchantAccountNumber));

    const again = await fund(a.merchantAccountNumber, body);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await disbursement(b)).toBe(0);
  });

  it('credit exactly one of two merchants recording the same receipt at once; the other gets the 409', async () => {
    const before = [await disbursement(a), await disbursement(b)];
    const body = { amount: '700.00', bankReference: 'FT-CLAIM-RACE', receivedOn: today(), recordedBy: OPS };
    for (let round = 0; round < 3; round++) {
      const reference = `${body.bankReference}-${round}`;
      const answers = await Promise.all([fund(a.merchantAccountNumber, { ...body, bankReference: reference }), fund(b.merchantAccountNumber, { ...body, bankReference: reference })]);
      expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([201, 409]);
      const winner = answers.find((r) => r.statusCode === 201)!.json();
      expect(clientError(answers.find((r) => r.statusCode === 409)!, 409).errorCode).toBe('E906');
      const { rows } = await t.db.query('select owner_merchant_account_number as owner from funding_claims where bank_reference = $1', [reference]);
      expect(rows).toEqual([{ owner: winner.merchantAccountNumber }]);
    }
    const { rows } = await t.db.query<{ n: number }>(`select count(*)::int as n from merchant_fundings where bank_reference like 'FT-CLAIM-RACE-%'`);
    expect(rows[0].n).toBe(3);
    expect((await disbursement(a)) + (await disbursement(b))).toBe(before[0] + before[1] + 3 * 700);
  });
});

describe('invitation tokens', () => {
  const TOKEN_IN_LINK = /\/users\/set-password\?token=([A-Za-z0-9_-]{43})/;
  const tokenFor = async (email: string) => {
    const { rows } = await t.db.query<{ body_text: string }>('select body_text from email_outbox where recipient = $1 order by email_id desc limit 1', [email]);
    return TOKEN_IN_LINK.exec(rows[0].body_text)![1];
  };
  const addUser = (m: TestMerchant, emailAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: `${BASE}/security/merchantUsers/add`,
      headers: m.auth,
      payload: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, firstName: 'Chikondi', lastName: 'Banda', emailAddress, phoneNumber: '0991234567', roleId: 2, capturedBy: OPS },
    });

  it('are claimed with the invitation, and the set-password link finds its merchant and user through the claim', async () => {
    const email = 'chikondi.claims@example.mw';
    const added = await addUser(b, email);
    expect(added.statusCode, added.body).toBe(201);
    const userId = String(added.headers['x-user-id']);
    const token = await tokenFor(email);
    const { rows } = await t.db.query(
      `select c.owner_merchant_account_number as owner, i.user_id from invitation_claims c
         join user_invitations i on i.merchant_account_number = c.owner_merchant_account_number and i.invitation_id = c.invitation_id
        where c.token_hash = sha256(convert_to($1, 'UTF8'))`,
      [token],
    );
    expect(rows).toEqual([{ owner: b.merchantAccountNumber, user_id: userId }]);

    const page = await t.app.inject({ method: 'GET', url: '/users/set-password', query: { token } });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Claims B');
    const form = new URLSearchParams({ token, password: 'claims-passphrase-0031', confirmation: 'claims-passphrase-0031' });
    const set = await t.app.inject({ method: 'POST', url: '/users/set-password', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
    expect(set.statusCode, set.body).toBeLessThan(400);
    const user = await t.db.query('select password_hash is not null as set from merchant_users where merchant_account_number = $1 and user_id = $2', [b.merchantAccountNumber, userId]);
    expect(user.rows).toEqual([{ set: true }]);
    // Used: the link no longer works, and the token stays claimed (as its unique hash stayed taken).
    const reopened = await t.app.inject({ method: 'GET', url: '/users/set-password', query: { token } });
    expect(reopened.body).not.toContain('Claims B');
    const claims = await t.db.query('select count(*)::int as n from invitation_claims where token_hash = sha256(convert_to($1, \'UTF8\'))', [token]);
    expect(claims.rows).toEqual([{ n: 1 }]);
  });
});
