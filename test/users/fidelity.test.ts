// Issue 14, fidelity: the gateway's documented request bodies for merchant users
// (docs.onekhusa.com/api-reference/users/…), API keys get by clientId and webhooks get by POST,
// sent as the documentation writes them — only the organisation, account numbers and ids are the
// test merchant's. Each also checks merchant isolation: another merchant's resource answers 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, clientError, dbState, newMerchant, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR, merchantUserFor, webhookFor } from '../routes.ts';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t, { accountName: 'Acme Corporation', levelNumber: 2 });
  other = await newMerchant(t, { accountName: 'Other Shop', organisationId: m.organisationId });
});
afterAll(() => t.close());

/** The headers of the documentation's curl examples, for `who`. */
const docHeaders = (who: TestMerchant) => ({
  ...who.auth,
  'content-type': 'application/json',
  'x-organisation-id': who.organisationId,
  'x-merchant-account-number': String(who.merchantAccountNumber),
  'accept-language': 'en',
});

function send(who: TestMerchant, method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, query?: Record<string, string>) {
  return t.app.inject({ method, url: `${BASE}${path}`, headers: docHeaders(who), payload: payload === undefined ? undefined : JSON.stringify(payload), query });
}

const getUser = (who: TestMerchant, userId: string) => send(who, 'GET', '/security/merchantUsers/get', undefined, { merchantAccountNumber: String(who.merchantAccountNumber), userId });

async function statusChanges(userId: string) {
  const { rows } = await t.db.query<{ status_code: string; reason_id: number | null; comments: string | null; changed_by: string }>(
    'select status_code, reason_id, comments, changed_by from merchant_user_status_changes where user_id = $1 order by change_id',
    [userId],
  );
  return rows;
}

describe('merchant users: the documented bodies', () => {
  let shop: TestMerchant;
  let johnId: string;

  beforeAll(async () => {
    shop = await newMerchant(t, { accountName: 'Acme Corporation' });
  });

  it('add: the docs\' body ("roleId": "MERC_ADMIN", "organisationTypeCode": "MER") answers 201, and the record reads as the docs\' one', async () => {
    // docs.onekhusa.com/api-reference/users/add-merchant-user
    const res = await send(shop, 'POST', '/security/merchantUsers/add', {
      organisationId: shop.organisationId,
      merchantAccountNumber: shop.merchantAccountNumber,
      firstName: 'John',
      lastName: 'Phiri',
      emailAddress: 'john.phiri@example.com',
      phoneNumber: '0881234567',
      roleId: 'MERC_ADMIN',
      organisationTypeCode: 'MER',
      capturedBy: 'admin@example.com',
    });
    expect(res.statusCode, res.body).toBe(201);
    johnId = String(res.headers['x-user-id']);
    const got = await getUser(shop, johnId);
    expect(got.statusCode, got.body).toBe(200);
    const user = got.json();
    // Every field of the docs' record (get-user, get-users), with the docs' values where they are the request's.
    expect(user).toMatchObject({
      userId: johnId,
      firstName: 'John',
      lastName: 'Phiri',
      emailAddress: 'john.phiri@example.com',
      isEmailConfirmed: false,
      roleName: 'Merchant Administrator',
      statusCode: 'A',
      statusName: 'Active',
      capturedBy: 'admin@example.com',
      modifiedBy: null,
      dateModified: null,
      roleId: 1,
      roleCode: 'MERC_ADMIN',
    });
    expect(user.dateCaptured).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(user.phoneNumber).toBe('265881234567');
    // The same record in getAll.
    const all = await send(shop, 'POST', '/security/merchantUsers/getAll', { merchantAccountNumber: shop.merchantAccountNumber, pageNumber: 1, numberOfReturnedRows: 20, isIncremental: false, searchBy: 'FirstName', searchText: 'John' });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toEqual([user]);
  });

  it.each([
    ['MERC_ADMIN', 1, 'Merchant Administrator'],
    ['MERC_INITIATOR', 2, 'Merchant Initiator'],
    ['MERC_REVIEWER', 3, 'Merchant Reviewer'],
    ['MERC_APPROVER', 4, 'Merchant Approver'],
    ['MERC_VIEWER', 5, 'Merchant Viewer'],
    ['merc_viewer', 5, 'Merchant Viewer'],
    [2, 2, 'Merchant Initiator'],
    ['4', 4, 'Merchant Approver'],
  ])('add: roleId %j is role %i, %s', async (roleId, number, roleName) => {
    const res = await send(shop, 'POST', '/security/merchantUsers/add', {
      organisationId: shop.organisationId,
      merchantAccountNumber: shop.merchantAccountNumber,
      firstName: 'Jane',
      lastName: 'Smith',
      emailAddress: `jane.${String(roleId).toLowerCase()}.${Date.now()}@example.com`,
      phoneNumber: '0881234567',
      roleId,
      organisationTypeCode: 'MER',
      capturedBy: 'admin@example.com',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((await getUser(shop, String(res.headers['x-user-id']))).json()).toMatchObject({ roleId: number, roleName, roleCode: ['', 'MERC_ADMIN', 'MERC_INITIATOR', 'MERC_REVIEWER', 'MERC_APPROVER', 'MERC_VIEWER'][number] });
  });

  it('add: an unknown role code or another organisation type answers 400 and adds nobody', async () => {
    const base = { organisationId: shop.organisationId, merchantAccountNumber: shop.merchantAccountNumber, firstName: 'A', lastName: 'B', emailAddress: 'nobody@example.com', phoneNumber: '0881234567', capturedBy: 'admin@example.com' };
    const before = await dbState(t.db);
    const unknown = clientError(await send(shop, 'POST', '/security/merchantUsers/add', { ...base, roleId: 'BO_OPR', organisationTypeCode: 'MER' }), 400);
    expect(unknown.errors).toEqual([expect.stringMatching(/^Role Id BO_OPR does not exist; use one of: MERC_ADMIN or 1 \(Merchant Administrator\), /)]);
    clientError(await send(shop, 'POST', '/security/merchantUsers/add', { ...base, roleId: 'MERC_ADMIN', organisationTypeCode: 'PSP' }), 400);
    clientError(await send(shop, 'POST', '/security/merchantUsers/add', { ...base, roleId: true }), 400);
    expect(await dbState(t.db)).toEqual(before);
  });

  it('update: the docs\' body (capturedBy, no organisationId, "roleId": "MERC_ADMIN") answers 200', async () => {
    const { userId } = await addJane(shop, 'MERC_VIEWER');
    // docs.onekhusa.com/api-reference/users/update-merchant-user
    const res = await send(shop, 'PUT', '/security/merchantUsers/update', {
      userId,
      merchantAccountNumber: shop.merchantAccountNumber,
      firstName: 'John',
      lastName: 'Phiri',
      emailAddress: 'john.phiri.updated@example.com',
      phoneNumber: '0881234567',
      roleId: 'MERC_ADMIN',
      capturedBy: 'admin@example.com',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await getUser(shop, userId)).json()).toMatchObject({
      firstName: 'John',
      lastName: 'Phiri',
      emailAddress: 'john.phiri.updated@example.com',
      roleCode: 'MERC_ADMIN',
      roleName: 'Merchant Administrator',
      modifiedBy: 'admin@example.com',
      dateModified: expect.any(String),
    });
  });

  it('update: without capturedBy or modifiedBy answers 400 naming capturedBy, and changes nothing', async () => {
    const { userId } = await addJane(shop, 'MERC_VIEWER');
    const before = await dbState(t.db);
    const p = clientError(
      await send(shop, 'PUT', '/security/merchantUsers/update', { userId, merchantAccountNumber: shop.merchantAccountNumber, firstName: 'X', lastName: 'Y', phoneNumber: '0881234567', roleId: 'MERC_ADMIN' }),
      400,
    );
    expect(p.errors).toEqual(['Captured By is required.']);
    expect(await dbState(t.db)).toEqual(before);
  });

  it('close and activate: the docs\' bodies (changedBy, reasonId, comments) answer 200 and are kept in the audit trail', async () => {
    const { userId } = await addJane(shop, 'MERC_APPROVER');
    // docs.onekhusa.com/api-reference/users/close-merchant-user
    const closed = await send(shop, 'PUT', '/security/merchantUsers/close', {
      merchantAccountNumber: shop.merchantAccountNumber,
      userId,
      changedBy: 'ops.admin@example.com',
      reasonId: 301,
      comments: 'Account closed at merchant request',
    });
    expect(closed.statusCode, closed.body).toBe(200);
    expect((await getUser(shop, userId)).json()).toMatchObject({ statusCode: 'C', modifiedBy: 'ops.admin@example.com' });
    // docs.onekhusa.com/api-reference/users/activate-user
    const activated = await send(shop, 'PUT', '/security/merchantUsers/activate', {
      merchantAccountNumber: shop.merchantAccountNumber,
      userId,
      changedBy: 'ops.admin@example.com',
      reasonId: 101,
      comments: 'Restoring account after security review',
    });
    expect(activated.statusCode, activated.body).toBe(200);
    expect((await getUser(shop, userId)).json()).toMatchObject({ statusCode: 'A' });
    // Activating an active user changes nothing, and records nothing.
    expect((await send(shop, 'PUT', '/security/merchantUsers/activate', { merchantAccountNumber: shop.merchantAccountNumber, userId, changedBy: 'ops.admin@example.com' })).statusCode).toBe(200);
    expect(await statusChanges(userId)).toEqual([
      { status_code: 'C', reason_id: 301, comments: 'Account closed at merchant request', changed_by: 'ops.admin@example.com' },
      { status_code: 'A', reason_id: 101, comments: 'Restoring account after security review', changed_by: 'ops.admin@example.com' },
    ]);
  });

  it('close and activate: reasonId and comments may be null or absent; changedBy may be an identifier; one of changedBy and modifiedBy is required', async () => {
    const { userId } = await addJane(shop, 'MERC_VIEWER');
    const close = (body: object) => send(shop, 'PUT', '/security/merchantUsers/close', { merchantAccountNumber: shop.merchantAccountNumber, userId, ...body });
    const before = await dbState(t.db);
    expect(clientError(await close({}), 400).errors).toEqual(['Changed By is required.']);
    clientError(await close({ changedBy: 'ops', reasonId: -1 }), 400);
    clientError(await close({ changedBy: 'ops', reasonId: 'why' }), 400);
    clientError(await close({ changedBy: 'ops', comments: 'x'.repeat(501) }), 400);
    expect(await dbState(t.db)).toEqual(before);
    expect((await close({ changedBy: 'PBANDA', reasonId: null, comments: null })).statusCode).toBe(200);
    // 0 is no reason (what a client with an unset integer sends).
    const activated = await send(shop, 'PUT', '/security/merchantUsers/activate', { merchantAccountNumber: shop.merchantAccountNumber, userId, changedBy: 'PBANDA', reasonId: 0 });
    expect(activated.statusCode, activated.body).toBe(200);
    expect(await statusChanges(userId)).toEqual([
      { status_code: 'C', reason_id: null, comments: null, changed_by: 'PBANDA' },
      { status_code: 'A', reason_id: null, comments: null, changed_by: 'PBANDA' },
    ]);
  });

  it('get: POST with the docs\' JSON body answers the GET\'s record; the docs\' "userId": 8 is no user (404, not 400)', async () => {
    const { userId } = await addJane(shop, 'MERC_REVIEWER');
    const record = (await getUser(shop, userId)).json();
    // docs.onekhusa.com/api-reference/users/get-user, with a real userId…
    const posted = await send(shop, 'POST', '/security/merchantUsers/get', { userId, merchantAccountNumber: shop.merchantAccountNumber });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual(record);
    // …case-insensitively, and verbatim: userId 8 (a number) is accepted and names nobody.
    expect((await send(shop, 'POST', '/security/merchantUsers/get', { UserId: userId, MerchantAccountNumber: shop.merchantAccountNumber })).json()).toEqual(record);
    const eight = clientError(await send(shop, 'POST', '/security/merchantUsers/get', { userId: 8, merchantAccountNumber: shop.merchantAccountNumber }), 404);
    expect(eight).toMatchObject({ errorCode: 'E903', detail: 'Merchant user 8 was not found.' });
    // A GET may carry the JSON body too.
    const getWithBody = await send(shop, 'GET', '/security/merchantUsers/get', { userId, merchantAccountNumber: shop.merchantAccountNumber });
    expect(getWithBody.statusCode, getWithBody.body).toBe(200);
    expect(getWithBody.json()).toEqual(record);
  });

  it('getMerchantClaims: the docs\' body answers the documented claims, then the role\'s permissions', async () => {
    const { userId, emailAddress } = await addJane(shop, 'MERC_INITIATOR');
    // docs.onekhusa.com/api-reference/users/get-users-claims
    const res = await send(shop, 'POST', '/security/merchantUsers/getMerchantClaims', { organisationId: shop.organisationId, merchantAccountNumber: shop.merchantAccountNumber, userId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      { claimType: 'MerchantAccountName', claimValue: 'Acme Corporation' },
      { claimType: 'MerchantStatusCode', claimValue: 'A' },
      { claimType: 'LevelNumber', claimValue: '1' },
      { claimType: 'LevelName', claimValue: 'Initiator Only' },
      { claimType: 'MerchantAccountNumber', claimValue: String(shop.merchantAccountNumber) },
      { claimType: 'OrganisationId', claimValue: shop.organisationId },
      { claimType: 'OrganisationTypeCode', claimValue: 'MER' },
      { claimType: 'Role', claimValue: 'MERC_INITIATOR' },
      { claimType: 'UserRole', claimValue: 'Merchant Initiator' },
      { claimType: 'UserId', claimValue: userId },
      { claimType: 'EmailAddress', claimValue: emailAddress },
      { claimType: 'UserStatusCode', claimValue: 'A' },
      { claimType: 'Permission', claimValue: 'batch.cancel.own' },
    ]);
    // merchantAccountNumber 0: "from login context" (the docs), here the token's merchant.
    const zero = await send(shop, 'POST', '/security/merchantUsers/getMerchantClaims', { organisationId: shop.organisationId, merchantAccountNumber: 0, userId });
    expect(zero.statusCode, zero.body).toBe(200);
    expect(zero.json()).toEqual(res.json());
  });

  it("getMerchantClaims: an administrator's permissions; a closed user has none", async () => {
    const admin = await addJane(shop, 'MERC_ADMIN');
    const claims = async () => (await send(shop, 'POST', '/security/merchantUsers/getMerchantClaims', { merchantAccountNumber: shop.merchantAccountNumber, userId: admin.userId })).json() as Array<{ claimType: string; claimValue: string }>;
    expect((await claims()).filter((c) => c.claimType === 'Permission').map((c) => c.claimValue)).toEqual(['batch.review', 'batch.approve', 'batch.reject', 'batch.cancel', 'batch.transferFunds']);
    expect((await send(shop, 'PUT', '/security/merchantUsers/close', { merchantAccountNumber: shop.merchantAccountNumber, userId: admin.userId, changedBy: ACTOR })).statusCode).toBe(200);
    const after = await claims();
    expect(after.find((c) => c.claimType === 'UserStatusCode')?.claimValue).toBe('C');
    expect(after.filter((c) => c.claimType === 'Permission')).toEqual([]);
  });

  it("another merchant's user answers 404 on every operation in its documented form, and is unchanged", async () => {
    const foreign = await merchantUserFor(t, other);
    const snapshot = async () => (await t.db.query('select u::text from merchant_users u where user_id = $1', [foreign])).rows;
    const before = await snapshot();
    const mac = { merchantAccountNumber: shop.merchantAccountNumber };
    for (const [method, path, body] of [
      ['POST', '/security/merchantUsers/get', { userId: foreign, ...mac }],
      ['POST', '/security/merchantUsers/getMerchantClaims', { organisationId: shop.organisationId, ...mac, userId: foreign }],
      ['POST', '/security/merchantUsers/getMerchantClaims', { organisationId: shop.organisationId, merchantAccountNumber: 0, userId: foreign }],
      ['PUT', '/security/merchantUsers/update', { userId: foreign, ...mac, firstName: 'Hijack', lastName: 'B', emailAddress: 'x@example.com', phoneNumber: '0881234567', roleId: 'MERC_ADMIN', capturedBy: 'admin@example.com' }],
      ['PUT', '/security/merchantUsers/close', { ...mac, userId: foreign, changedBy: 'ops.admin@example.com', reasonId: 301, comments: 'x' }],
      ['PUT', '/security/merchantUsers/activate', { ...mac, userId: foreign, changedBy: 'ops.admin@example.com', reasonId: 101, comments: 'x' }],
    ] as const) {
      const p = clientError(await send(shop, method, path, body), 404);
      expect(p.errorCode).toBe('E903');
      expect(JSON.stringify(p)).not.toContain(String(other.merchantAccountNumber));
    }
    // Naming the other merchant's account instead: 404 as well.
    clientError(await send(shop, 'POST', '/security/merchantUsers/getMerchantClaims', { merchantAccountNumber: other.merchantAccountNumber, userId: foreign }), 404);
    expect(await snapshot()).toEqual(before);
    expect(await statusChanges(foreign)).toEqual([]);
  });
});

async function addJane(who: TestMerchant, roleId: string | number): Promise<{ userId: string; emailAddress: string }> {
  const emailAddress = `jane.${Math.random().toString(36).slice(2, 10)}@example.com`;
  const res = await send(who, 'POST', '/security/merchantUsers/add', {
    organisationId: who.organisationId,
    merchantAccountNumber: who.merchantAccountNumber,
    firstName: 'Jane',
    lastName: 'Smith',
    emailAddress,
    phoneNumber: '0881234567',
    roleId,
    organisationTypeCode: 'MER',
    capturedBy: 'admin@example.com',
  });
  expect(res.statusCode, res.body).toBe(201);
  return { userId: String(res.headers['x-user-id']), emailAddress };
}

describe('API keys: get by clientId', () => {
  it('finds the key by ?clientId=, by the docs\' curl form ?clientKey=<clientId>, and by a JSON body {merchantAccountNumber, clientId}', async () => {
    const byKey = await send(m, 'GET', '/security/apiKeys/get', undefined, { merchantAccountNumber: String(m.merchantAccountNumber), clientKey: m.apiKey });
    expect(byKey.statusCode, byKey.body).toBe(200);
    const record = byKey.json();
    expect(record.clientId).toBe(m.clientId);
    const byId = await send(m, 'GET', '/security/apiKeys/get', undefined, { merchantAccountNumber: String(m.merchantAccountNumber), clientId: String(m.clientId) });
    expect(byId.statusCode, byId.body).toBe(200);
    expect(byId.json()).toEqual(record);
    // docs.onekhusa.com/api-reference/apiKeys/get-apikey: `?merchantAccountNumber=35253486&clientKey=23`.
    const docCurl = await t.app.inject({ method: 'GET', url: `${BASE}/security/apiKeys/get?merchantAccountNumber=${m.merchantAccountNumber}&clientKey=${m.clientId}`, headers: docHeaders(m) });
    expect(docCurl.statusCode, docCurl.body).toBe(200);
    expect(docCurl.json()).toEqual(record);
    // …and its Body section: {merchantAccountNumber, clientId}.
    const body = await send(m, 'GET', '/security/apiKeys/get', { merchantAccountNumber: m.merchantAccountNumber, clientId: m.clientId });
    expect(body.statusCode, body.body).toBe(200);
    expect(body.json()).toEqual(record);
    expect(byId.body).not.toContain(m.apiSecret);
  });

  it("another merchant's clientId answers 404, as an unknown one does; neither clientKey nor clientId is 400", async () => {
    const mac = String(m.merchantAccountNumber);
    const foreign = clientError(await send(m, 'GET', '/security/apiKeys/get', undefined, { merchantAccountNumber: mac, clientId: String(other.clientId) }), 404);
    const unknown = clientError(await send(m, 'GET', '/security/apiKeys/get', undefined, { merchantAccountNumber: mac, clientId: '900000000' }), 404);
    expect(foreign.errorCode).toBe('E903');
    expect(foreign.detail.replace(String(other.clientId), 'N')).toBe(unknown.detail.replace('900000000', 'N'));
    clientError(await send(m, 'GET', '/security/apiKeys/get', undefined, { merchantAccountNumber: mac, clientKey: String(other.clientId) }), 404);
    expect(clientError(await send(m, 'GET', '/security/apiKeys/get', undefined, { merchantAccountNumber: mac }), 400).errors).toEqual(['Client Key is required.']);
    clientError(await send(m, 'GET', '/security/apiKeys/get', undefined, { merchantAccountNumber: mac, clientId: '0' }), 400);
  });
});

describe('webhooks: get by POST, add answers an object', () => {
  it('webhooks/get: POST with the docs\' JSON body answers the GET\'s record', async () => {
    const who = await newMerchant(t, { accountName: 'Hook Shop' });
    // docs.onekhusa.com/api-reference/webhooks/add-webhook
    const added = await send(who, 'POST', '/merchants/webhooks/add', {
      merchantAccountNumber: who.merchantAccountNumber,
      eventCode: 'payment.success',
      callbackUrl: 'https://merchant.example.com/webhooks/payment',
      capturedBy: 'johndoe@example.com',
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toEqual({ message: 'Merchant webhook has been created successfully' });
    const record = (await send(who, 'GET', '/merchants/webhooks/get', undefined, { merchantAccountNumber: String(who.merchantAccountNumber), eventCode: 'payment.success' })).json();
    expect(record).toMatchObject({ eventCode: 'payment.success', callbackUrl: 'https://merchant.example.com/webhooks/payment', createdBy: 'johndoe@example.com' });
    // docs.onekhusa.com/api-reference/webhooks/getwebhook
    const posted = await send(who, 'POST', '/merchants/webhooks/get', { merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success' });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toEqual(record);
    expect((await send(who, 'POST', '/merchants/webhooks/get', { MerchantAccountNumber: who.merchantAccountNumber, WebhookId: record.webhookId })).json()).toEqual(record);
    const getWithBody = await send(who, 'GET', '/merchants/webhooks/get', { merchantAccountNumber: who.merchantAccountNumber, eventCode: 'payment.success' });
    expect(getWithBody.statusCode, getWithBody.body).toBe(200);
    expect(getWithBody.json()).toEqual(record);
    expect(clientError(await send(who, 'POST', '/merchants/webhooks/get', { merchantAccountNumber: who.merchantAccountNumber }), 400).errors).toEqual(['Webhook Id is required.']);
  });

  it("webhooks/get by POST: another merchant's subscription answers 404", async () => {
    const theirs = await webhookFor(t, other);
    clientError(await send(m, 'POST', '/merchants/webhooks/get', { merchantAccountNumber: m.merchantAccountNumber, webhookId: Number(theirs.webhook_id) }), 404);
    clientError(await send(m, 'POST', '/merchants/webhooks/get', { merchantAccountNumber: other.merchantAccountNumber, eventCode: theirs.event_code }), 404);
  });
});
