// The console's team pages and audit log over HTTP (app.inject with a cookie-keeping client, a
// real database): an administrator invites a user (the invitation e-mail goes through the outbox,
// the link sets a password, the new user signs in with the role given), changes a role (it applies
// on the user's next request), sends a new invitation (the old link stops working), closes a user
// (their session ends at once) and activates them again; every form refuses bad input field by
// field with the input shown back, acts once for a double submit, refuses the administrator's own
// closing or demotion, other roles (403) and another merchant's users (404). The audit log shows
// these actions with who did them, filters by user, action and days, pages by keyset, escapes what
// entries hold, and never shows another merchant's entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAudit, type AuditAction } from '../../../src/modules/console/kit/audit.ts';
import { ConsoleClient, consoleUser, invitationToken, newEmail, textOf, type ConsoleUserInfo } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { merchantsAndAdmin } from '../fixtures.ts';

const TEAM = '/console/team';
const INVITE = '/console/team/invite';
const AUDIT = '/console/team/audit';
const userPage = (id: string) => `${TEAM}/users/${id}`;
const PASSWORD = 'Mtsinje wa Shire ukuyenda 2026';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let admin: ConsoleUserInfo;
let otherAdmin: ConsoleUserInfo;
let ipSeq = 0;

beforeAll(async () => {
  t = await startTestApp();
  ({ m, other, admin } = await merchantsAndAdmin(t, { merchant: { accountName: 'Mponela Hardware' }, admin: { firstName: 'Chikondi' } }));
  otherAdmin = await consoleUser(t, other, { role: 'MERC_ADMIN', firstName: 'Other' });
});
afterAll(async () => {
  await t?.close();
});

/** A client of its own address (the sign-in throttle counts per address). */
function client(): ConsoleClient {
  ipSeq += 1;
  return new ConsoleClient(t, `10.30.${Math.floor(ipSeq / 250)}.${ipSeq % 250}`);
}

/** A client signed in as `user`, holding its session's CSRF token (from `page`). */
async function signedIn(user: { email: string; password: string }, page = '/console'): Promise<ConsoleClient> {
  const c = client();
  const res = await c.signIn(user.email, user.password);
  expect(res.statusCode, res.body).toBe(303);
  expect((await c.get(page)).statusCode).toBe(200);
  return c;
}

/** The form key of the form with this id in `html`. */
function formKey(html: string, formId: string): string {
  const key = new RegExp(`id="${formId}"[^]*?name="_form" value="([0-9a-f-]{36})"`).exec(html)?.[1];
  if (!key) throw new Error(`no form key in #${formId}`);
  return key;
}

/** The text of the cell labelled `label` in the row with id `rowId`. */
function cellText(html: string, rowId: string, label: string): string | undefined {
  const row = new RegExp(`<tr id="${rowId}"[^]*?</tr>`).exec(html)?.[0] ?? '';
  const cell = new RegExp(`data-label="${label}"><div class="cell">([^]*?)</div></t[dh]>`).exec(row)?.[1];
  // A <wbr> (kit/display.tsx Breakable) is a place to break, not a space.
  return cell?.replace(/<wbr>/g, '').replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
}

/** The `day` detail of the audit entries shown. */
const days = (html: string) => [...html.matchAll(/detail-key">day<\/span>: <span class="detail-value">(\d{4}-\d{2}-\d{2})</g)].map((x) => x[1]);

/** The value an input shows back. */
function inputValue(html: string, id: string): string | undefined {
  const tag = new RegExp(`<input[^>]*\\sid="${id}"[^>]*>`).exec(html)?.[0];
  const value = tag ? /\svalue="([^"]*)"/.exec(tag)?.[1] : undefined;
  return value?.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

async function inviteForm(c: ConsoleClient): Promise<string> {
  const form = await c.get(INVITE);
  expect(form.statusCode, form.body).toBe(200);
  return formKey(form.body, 'invite-form');
}

const invitation = (email: string, roleId = 'MERC_REVIEWER', over: Record<string, string> = {}) => ({
  firstName: 'Madalitso',
  lastName: 'Banda',
  emailAddress: email,
  phoneNumber: '0881234567',
  roleId,
  ...over,
});

/** Invites `email` from the console; answers the new user's id. */
async function invite(c: ConsoleClient, email: string, roleId = 'MERC_REVIEWER'): Promise<string> {
  const res = await c.post(INVITE, { ...invitation(email, roleId), _form: await inviteForm(c) });
  expect(res.statusCode, res.body).toBe(303);
  // No SMTP_URL in tests: the invitation is held, and the notice says so (kit/mail.ts).
  const userId = /\/console\/team\/users\/([0-9a-f-]{36})\?notice=notice\.team\.invitedHeld$/.exec(String(res.headers.location))?.[1];
  expect(userId, String(res.headers.location)).toBeDefined();
  return userId!;
}

/** Sets the password through the invitation link, as the invited person does. */
async function setPassword(token: string, password = PASSWORD) {
  return t.app.inject({
    method: 'POST',
    url: '/users/set-password',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, password, confirmation: password }).toString(),
  });
}

async function outboxCount(recipient: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from email_outbox where lower(recipient) = lower($1)', [recipient]);
  return rows[0].n;
}

async function userRow(userId: string) {
  const { rows } = await t.db.query<{ role_id: number; status_code: string; captured_by: string; modified_by: string | null }>(
    'select role_id, status_code, captured_by, modified_by from merchant_users where user_id = $1',
    [userId],
  );
  return rows[0];
}

async function auditOf(action: string, targetUserId: string) {
  const { rows } = await t.db.query<{ user_id: string; detail: Record<string, unknown> }>(
    `select user_id, detail from console_audit_log where merchant_account_number = $1 and action = $2 and detail ->> 'userId' = $3`,
    [m.merchantAccountNumber, action, targetUserId],
  );
  return rows;
}

async function sessionsOf(userId: string): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>('select count(*)::int as n from console_sessions where user_id = $1', [userId]);
  return rows[0].n;
}

describe('the team page', () => {
  it('lists the users with role, status, password, two-factor and last sign-in', async () => {
    const c = await signedIn(admin, TEAM);
    const viewer = await consoleUser(t, m, { role: 'MERC_VIEWER', firstName: 'Yamikani' });
    const pending = newEmail('pending');
    const pendingId = await invite(c, pending, 'MERC_INITIATOR');
    const page = await c.get(TEAM);
    expect(page.statusCode).toBe(200);
    const cell = (id: string, label: string) => cellText(page.body, `user-${id}`, label);
    expect(cell(admin.userId, 'Name')).toBe(`Chikondi Phiri you ${admin.email}`);
    expect(cell(admin.userId, 'Role')).toBe('Merchant Administrator');
    expect(cell(admin.userId, 'Status')).toBe('Active');
    expect(cell(admin.userId, 'Password')).toBe('Set');
    expect(cell(admin.userId, 'Last sign-in')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(cell(viewer.userId, 'Role')).toBe('Merchant Viewer');
    expect(cell(viewer.userId, 'Last sign-in')).toBe('Never');
    expect(cell(pendingId, 'Password')).toMatch(/^Invitation pending link works until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(cell(pendingId, 'Role')).toBe('Merchant Initiator');
    expect(cell(pendingId, 'Two-factor')).toBe('Off');
    await t.db.query(`insert into console_two_factor (merchant_account_number, user_id, secret_sealed, created_at, confirmed_at) values ($1, $2, $3, now(), now())`, [
      m.merchantAccountNumber,
      viewer.userId,
      Buffer.alloc(40),
    ]);
    expect(cellText((await c.get(TEAM)).body, `user-${viewer.userId}`, 'Two-factor')).toBe('On');
    // Another merchant's users are not listed.
    expect(page.body).not.toContain(otherAdmin.email);
    // In Chichewa too.
    const ny = await c.get(`${TEAM}?lang=ny`);
    expect(cellText(ny.body, `user-${pendingId}`, 'Mawu achinsinsi')).toContain('Kuitana kukudikira');
  });
});

describe('inviting a user', () => {
  it('adds the user, e-mails the invitation through the outbox, and the link lets them sign in with the role given', async () => {
    const c = await signedIn(admin, TEAM);
    const email = newEmail('invited');
    const userId = await invite(c, email, 'MERC_REVIEWER');
    const shown = await c.get(`${userPage(userId)}?notice=notice.team.invitedHeld`);
    expect(textOf(shown.body, 'notice')).toContain('the invitation e-mail was not sent');
    expect(textOf(shown.body, 'notice-link')).toBe('Open the outbox');
    expect(textOf(shown.body, 'user-password')).toContain('Invitation pending');
    const row = await userRow(userId);
    expect(row).toMatchObject({ role_id: 3, status_code: 'A', captured_by: admin.email });
    expect(await outboxCount(email)).toBe(1);

    expect((await setPassword(await invitationToken(t, email))).statusCode).toBe(200);
    const invited = await signedIn({ email, password: PASSWORD });
    const home = await invited.get('/console');
    expect(textOf(home.body, 'signed-in-user')).toContain('Merchant Reviewer');
    // A reviewer does not see the team.
    expect((await invited.get(TEAM)).statusCode).toBe(403);

    const audit = await auditOf('user.invite', userId);
    expect(audit).toEqual([{ user_id: admin.userId, detail: { userId, emailAddress: email, role: 'MERC_REVIEWER' } }]);
  });

  it('acts once when the same form is submitted twice', async () => {
    const c = await signedIn(admin, TEAM);
    const email = newEmail('twice');
    const key = await inviteForm(c);
    const first = await c.post(INVITE, { ...invitation(email), _form: key });
    const second = await c.post(INVITE, { ...invitation(email), _form: key });
    expect(first.statusCode).toBe(303);
    expect(second.statusCode).toBe(303);
    expect(second.headers.location).toBe(first.headers.location);
    const { rows } = await t.db.query('select user_id from merchant_users where lower(email_address) = lower($1)', [email]);
    expect(rows).toHaveLength(1);
    expect(await outboxCount(email)).toBe(1);
  });

  it('shows each field\'s problem beside the input as typed, and changes nothing', async () => {
    const c = await signedIn(admin, TEAM);
    const before = (await t.db.query('select count(*)::int as n from merchant_users')).rows[0].n;
    const bad = await c.post(INVITE, { firstName: '   ', lastName: 'x'.repeat(61), emailAddress: 'not an address', phoneNumber: '0771234567', roleId: '', _form: await inviteForm(c) });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'invite-first-name-error')).toBe('Enter the first name.');
    expect(textOf(bad.body, 'invite-last-name-error')).toBe('A name has at most 60 characters.');
    expect(textOf(bad.body, 'invite-email-error')).toContain('Enter an e-mail address such as');
    expect(textOf(bad.body, 'invite-phone-error')).toContain('Enter a Malawian mobile number');
    expect(textOf(bad.body, 'invite-role-error')).toBe('Choose a role.');
    expect(textOf(bad.body, 'invite-problems')).toContain('Nothing was changed');
    expect(inputValue(bad.body, 'invite-email')).toBe('not an address');
    expect(inputValue(bad.body, 'invite-last-name')).toBe('x'.repeat(61));
    expect(inputValue(bad.body, 'invite-phone')).toBe('0771234567');
    expect(bad.body).toMatch(/<input[^>]*id="invite-email"[^>]*aria-invalid="true"/);
    expect(bad.body).toMatch(/<input[^>]*id="invite-email"[^>]*aria-describedby="[^"]*invite-email-error/);

    // The same in Chichewa.
    const ny = await c.post(`${INVITE}?lang=ny`, { firstName: '', lastName: 'Banda', emailAddress: 'a@b.mw', phoneNumber: '0991234567', roleId: 'MERC_VIEWER', _form: await inviteForm(c) });
    expect(ny.statusCode).toBe(400);
    expect(textOf(ny.body, 'invite-first-name-error')).toBe('Lembani dzina loyamba.');
    await c.get(`${INVITE}?lang=en`);

    // A role that does not exist (a forged form), and an address with an invisible character.
    const forged = await c.post(INVITE, { ...invitation(newEmail('forged'), 'MERC_GOD'), _form: await inviteForm(c) });
    expect(forged.statusCode).toBe(400);
    expect(textOf(forged.body, 'invite-role-error')).toBe('Choose one of the roles listed.');
    const invisible = await c.post(INVITE, { ...invitation('bo\u200bss@shop.mw'), _form: await inviteForm(c) });
    expect(invisible.statusCode).toBe(400);
    expect(textOf(invisible.body, 'invite-email-error')).toContain('invisible characters');

    // The service's own refusal: an address already a user of this merchant (in another case).
    const taken = await c.post(INVITE, { ...invitation(admin.email.toUpperCase()), _form: await inviteForm(c) });
    expect(taken.statusCode).toBe(409);
    expect(textOf(taken.body, 'invite-email-error')).toBe(`${admin.email.toUpperCase()} is already a user of this merchant account.`);
    expect(inputValue(taken.body, 'invite-first-name')).toBe('Madalitso');
    expect((await t.db.query('select count(*)::int as n from merchant_users')).rows[0].n).toBe(before);
  });

  it('accepts the phone number as people write it, and the same address at another merchant', async () => {
    const c = await signedIn(admin, TEAM);
    const res = await c.post(INVITE, { ...invitation(otherAdmin.email, 'MERC_VIEWER', { phoneNumber: '+265 99 123 4567' }), _form: await inviteForm(c) });
    expect(res.statusCode, res.body).toBe(303);
    const { rows } = await t.db.query('select phone_number from merchant_users where merchant_account_number = $1 and lower(email_address) = lower($2)', [m.merchantAccountNumber, otherAdmin.email]);
    expect(rows).toEqual([{ phone_number: '265991234567' }]);
  });
});

describe('changing a role', () => {
  it('applies on the user\'s next request, without signing in again', async () => {
    const viewer = await consoleUser(t, m, { role: 'MERC_VIEWER' });
    const v = await signedIn(viewer);
    expect((await v.get(TEAM)).statusCode).toBe(403);
    const c = await signedIn(admin, userPage(viewer.userId));
    const page = await c.get(userPage(viewer.userId));
    const res = await c.post(`${userPage(viewer.userId)}/role`, { roleId: 'MERC_ADMIN', _form: formKey(page.body, 'role-form') });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`${userPage(viewer.userId)}?notice=notice.team.roleChanged`);
    expect(await userRow(viewer.userId)).toMatchObject({ role_id: 1, modified_by: admin.email });
    // The same session: the role is read fresh on every request.
    expect((await v.get(TEAM)).statusCode).toBe(200);
    expect(await auditOf('user.change_role', viewer.userId)).toEqual([
      { user_id: admin.userId, detail: { userId: viewer.userId, emailAddress: viewer.email, fromRole: 'MERC_VIEWER', toRole: 'MERC_ADMIN' } },
    ]);
  });

  it('refuses a role that is not one, and the administrator\'s own role or closing', async () => {
    const target = await consoleUser(t, m, { role: 'MERC_INITIATOR' });
    const c = await signedIn(admin, userPage(target.userId));
    const page = await c.get(userPage(target.userId));
    const bad = await c.post(`${userPage(target.userId)}/role`, { roleId: 'ROOT', _form: formKey(page.body, 'role-form') });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'role-select-error')).toBe('Choose one of the roles listed.');
    expect((await userRow(target.userId)).role_id).toBe(2);

    // Their own page shows no role form and no close button; a forged POST is refused all the same.
    const own = await c.get(userPage(admin.userId));
    expect(own.body).not.toContain('id="role-form"');
    expect(own.body).not.toContain('id="close-form"');
    expect(textOf(own.body, 'own-close')).toContain('You cannot close your own account');
    const key = formKey(page.body, 'role-form');
    const demote = await c.post(`${userPage(admin.userId)}/role`, { roleId: 'MERC_VIEWER', _form: key });
    expect(demote.statusCode).toBe(403);
    expect(textOf(demote.body, 'error')).toBe('You cannot change your own role. Ask another administrator.');
    const close = await c.post(`${userPage(admin.userId)}/close`, { _form: formKey(page.body, 'close-form') });
    expect(close.statusCode).toBe(403);
    expect(textOf(close.body, 'error')).toBe('You cannot close your own account. Ask another administrator.');
    expect(await userRow(admin.userId)).toMatchObject({ role_id: 1, status_code: 'A' });
    expect((await c.get(TEAM)).statusCode).toBe(200);
  });
});

describe('a new invitation', () => {
  it('sends a new link and the old one stops working; refused once the user has a password', async () => {
    const c = await signedIn(admin, TEAM);
    const email = newEmail('again');
    const userId = await invite(c, email);
    const oldToken = await invitationToken(t, email);
    const page = await c.get(userPage(userId));
    const res = await c.post(`${userPage(userId)}/reinvite`, { _form: formKey(page.body, 'reinvite-form') });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`${userPage(userId)}?notice=notice.team.reinvitedHeld`);
    expect(await outboxCount(email)).toBe(2);
    const newToken = await invitationToken(t, email);
    expect(newToken).not.toBe(oldToken);
    expect((await t.app.inject({ method: 'GET', url: `/users/set-password?token=${oldToken}` })).statusCode).toBe(410);
    expect((await setPassword(oldToken)).statusCode).toBe(410);
    expect(await auditOf('user.reinvite', userId)).toEqual([{ user_id: admin.userId, detail: { userId, emailAddress: email } }]);

    expect((await setPassword(newToken)).statusCode).toBe(200);
    // The page no longer offers it; the stale page's form is refused with the service's reason.
    const after = await c.get(userPage(userId));
    expect(after.body).not.toContain('id="reinvite-form"');
    const stale = await c.post(`${userPage(userId)}/reinvite`, { _form: formKey(page.body, 'role-form') });
    expect(stale.statusCode).toBe(402);
    expect(textOf(stale.body, 'error')).toContain('has already set a password');
    expect(await outboxCount(email)).toBe(2);
  });
});

describe('closing a user', () => {
  it('ends their session at once, and activating lets them sign in again', async () => {
    const user = await consoleUser(t, m, { role: 'MERC_APPROVER' });
    const u = await signedIn(user);
    expect(await sessionsOf(user.userId)).toBe(1);
    const c = await signedIn(admin, userPage(user.userId));
    const page = await c.get(userPage(user.userId));
    const res = await c.post(`${userPage(user.userId)}/close`, { _form: formKey(page.body, 'close-form') });
    expect(res.statusCode, res.body).toBe(303);
    expect(await sessionsOf(user.userId)).toBe(0);
    expect((await userRow(user.userId)).status_code).toBe('C');
    const next = await u.get('/console/payouts');
    expect(next.statusCode).toBe(303);
    expect(String(next.headers.location)).toMatch(/^\/console\/sign-in\?expired=1/);
    expect((await client().signIn(user.email, user.password)).statusCode).not.toBe(303);
    expect(await auditOf('user.close', user.userId)).toEqual([{ user_id: admin.userId, detail: { userId: user.userId, emailAddress: user.email } }]);

    const closed = await c.get(userPage(user.userId));
    expect(textOf(closed.body, 'user-status')).toContain('Closed');
    const again = await c.post(`${userPage(user.userId)}/activate`, { _form: formKey(closed.body, 'activate-form') });
    expect(again.statusCode).toBe(303);
    expect((await userRow(user.userId)).status_code).toBe('A');
    expect((await client().signIn(user.email, user.password)).statusCode).toBe(303);
    expect(await auditOf('user.activate', user.userId)).toHaveLength(1);
  });
});

describe('who may use the team pages', () => {
  it('refuses every other role, also a forged POST, and changes nothing', async () => {
    const target = await consoleUser(t, m, { role: 'MERC_VIEWER' });
    for (const role of ['MERC_INITIATOR', 'MERC_REVIEWER', 'MERC_APPROVER', 'MERC_VIEWER']) {
      const user = await consoleUser(t, m, { role });
      const c = await signedIn(user);
      for (const path of [TEAM, INVITE, AUDIT, userPage(target.userId)]) {
        const res = await c.get(path);
        expect(res.statusCode, `${role} ${path}`).toBe(403);
      }
      const email = newEmail('forged');
      expect((await c.post(INVITE, { ...invitation(email, 'MERC_ADMIN'), _form: crypto.randomUUID() })).statusCode).toBe(403);
      expect((await c.post(`${userPage(target.userId)}/role`, { roleId: 'MERC_ADMIN', _form: crypto.randomUUID() })).statusCode).toBe(403);
      expect((await c.post(`${userPage(target.userId)}/close`, { _form: crypto.randomUUID() })).statusCode).toBe(403);
      expect((await t.db.query('select 1 from merchant_users where lower(email_address) = lower($1)', [email])).rowCount).toBe(0);
    }
    expect(await userRow(target.userId)).toMatchObject({ role_id: 5, status_code: 'A' });
    // The navigation does not offer it either.
    const viewer = await signedIn(target);
    expect((await viewer.get('/console')).body).not.toContain(`href="${TEAM}"`);
  });

  it('answers 404 for another merchant\'s user and for what is not a user id', async () => {
    const c = await signedIn(admin, TEAM);
    for (const id of [otherAdmin.userId, crypto.randomUUID(), 'not-a-user', '1']) {
      expect((await c.get(userPage(id))).statusCode, id).toBe(404);
      for (const verb of ['role', 'reinvite', 'close', 'activate']) {
        expect((await c.post(`${userPage(id)}/${verb}`, { roleId: 'MERC_VIEWER', _form: crypto.randomUUID() })).statusCode, `${verb} ${id}`).toBe(404);
      }
    }
    const row = await t.db.query('select role_id, status_code from merchant_users where user_id = $1', [otherAdmin.userId]);
    expect(row.rows[0]).toEqual({ role_id: 1, status_code: 'A' });
  });
});

describe('the audit log', () => {
  it('shows the team\'s actions with who did them, newest first, escaped', async () => {
    const c = await signedIn(admin, TEAM);
    const email = newEmail('audited');
    const userId = await invite(c, email);
    await t.db.query(
      `update console_audit_log set detail = detail || '{"note": "<img src=x onerror=alert(1)>"}', user_agent = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
        where action = 'user.invite' and detail ->> 'userId' = $1`,
      [userId],
    );
    const page = await c.get(AUDIT);
    expect(page.statusCode).toBe(200);
    const first = /<tr id="audit-([0-9a-f-]{36})" data-action="([a-z_.]+)"/.exec(page.body);
    expect(first?.[2]).toBe('user.invite');
    const row = textOf(page.body, `audit-${first![1]}`) ?? '';
    expect(row).toContain('User invited');
    expect(row).toContain(admin.email);
    expect(row).toContain('Chrome 131 on Linux');
    expect(row).toContain(`userId: ${userId}`);
    expect(row).toContain('note: <img src=x onerror=alert(1)>');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.body).toMatch(/<time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z">/);
    // A sign-in is named; another merchant's entries never show.
    expect(page.body).toContain('Signed in');
    expect(page.body).not.toContain(otherAdmin.userId);

    // An action the console does not name is shown as its code; an entry without a user by the address typed.
    await writeAudit(t.db, new Date(Date.now() + 60_000), { ip: '192.0.2.9', userAgent: '' }, [
      { merchantAccountNumber: m.merchantAccountNumber, userId: null, emailTried: 'someone@else.mw', action: 'mystery.thing' as AuditAction },
    ]);
    const newest = await c.get(AUDIT);
    const id = /<tr id="audit-([0-9a-f-]{36})" data-action="mystery.thing"/.exec(newest.body)![1];
    expect(cellText(newest.body, `audit-${id}`, 'What')).toBe('mystery.thing');
    expect(cellText(newest.body, `audit-${id}`, 'Who')).toBe('typed: someone@else.mw');
    expect(cellText(newest.body, `audit-${id}`, 'From where')).toBe('192.0.2.9 Unknown browser');
  });

  it('filters by user (by them and about them), by action and by UTC days', async () => {
    const c = await signedIn(admin, TEAM);
    const email = newEmail('filtered');
    const userId = await invite(c, email);
    expect((await setPassword(await invitationToken(t, email))).statusCode).toBe(200);
    await signedIn({ email, password: PASSWORD });

    const byUser = await c.get(`${AUDIT}?user=${userId}&limit=100`);
    expect(byUser.statusCode).toBe(200);
    const actions = [...byUser.body.matchAll(/data-action="([a-z_.]+)" data-user-id="([^"]*)"/g)].map((x) => [x[1], x[2]]);
    expect(actions).toEqual([
      ['sign_in', userId],
      ['user.invite', admin.userId],
    ]);
    expect(byUser.body).toMatch(new RegExp(`<option value="${userId}" selected>`));

    const invites = await c.get(`${AUDIT}?action=user.invite&limit=100`);
    const codes = [...invites.body.matchAll(/data-action="([a-z_.]+)"/g)].map((x) => x[1]);
    expect(codes.length).toBeGreaterThan(1);
    expect(new Set(codes)).toEqual(new Set(['user.invite']));

    const origin = { ip: '192.0.2.7', userAgent: 'test' };
    for (const day of ['2025-01-10', '2025-01-11', '2025-01-12']) {
      await writeAudit(t.db, new Date(`${day}T23:59:59.999Z`), origin, [{ merchantAccountNumber: m.merchantAccountNumber, userId: admin.userId, action: 'sign_out', detail: { day } }]);
    }
    const oneDay = await c.get(`${AUDIT}?from=2025-01-11&to=2025-01-11`);
    expect(days(oneDay.body)).toEqual(['2025-01-11']);
    const fromDay = await c.get(`${AUDIT}?from=2025-01-11&to=2025-01-31&action=sign_out`);
    expect(days(fromDay.body)).toEqual(['2025-01-12', '2025-01-11']);

    // Filters that cannot be: the page says which, with the value, and shows no entries.
    const bad = await c.get(`${AUDIT}?user=not-a-user`);
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body, 'filter-problem')).toContain('User: "not-a-user" is not valid');
    const badDay = await c.get(`${AUDIT}?from=2025-02-30`);
    expect(badDay.statusCode).toBe(400);
    expect(textOf(badDay.body, 'filter-problem')).toContain('2025-02-30');
    const reversed = await c.get(`${AUDIT}?from=2025-02-03&to=2025-02-01`);
    expect(reversed.statusCode).toBe(400);
    // Another merchant's user: nothing (their entries are not this merchant's).
    const foreign = await c.get(`${AUDIT}?user=${otherAdmin.userId}`);
    expect(foreign.statusCode).toBe(200);
    expect(foreign.body).toContain('id="audit-empty"');
  });

  it('pages by keyset through entries of the same instant, without a gap or a repeat, and answers htmx with the region', async () => {
    const merchant = await newMerchant(t, { accountName: 'Paging Shop' });
    const owner = await consoleUser(t, merchant, { role: 'MERC_ADMIN' });
    const c = await signedIn(owner, TEAM);
    const at = new Date('2025-03-01T10:00:00.123456Z');
    const origin = { ip: '192.0.2.8', userAgent: 'test' };
    await writeAudit(
      t.db,
      at,
      origin,
      Array.from({ length: 30 }, (_, i) => ({ merchantAccountNumber: merchant.merchantAccountNumber, userId: owner.userId, action: 'sign_out' as const, detail: { n: i } })),
    );
    const seen: string[] = [];
    let url: string | undefined = `${AUDIT}?action=sign_out&limit=12`;
    let pages = 0;
    while (url) {
      const res = await c.get(url);
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...[...res.body.matchAll(/<tr id="audit-([0-9a-f-]{36})"/g)].map((x) => x[1]));
      url = /<a class="link-button" href="([^"]+)"[^>]*rel="next"/.exec(res.body)?.[1]?.replace(/&amp;/g, '&');
      pages += 1;
      expect(pages).toBeLessThan(5);
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);

    const region = await c.get(`${AUDIT}?action=sign_out&limit=12`, { 'hx-request': 'true', 'hx-target': 'audit-results' });
    expect(region.statusCode).toBe(200);
    expect(region.body.startsWith('<section class="results" id="audit-results"')).toBe(true);
    expect(region.body).not.toContain('<html');

    // A cursor of this list is refused by another merchant's (and by other filters).
    const next = /href="([^"]*after=[^"]+)"/.exec((await c.get(`${AUDIT}?action=sign_out&limit=12`)).body)![1].replace(/&amp;/g, '&');
    const cursor = new URL(next, 'http://x').searchParams.get('after')!;
    const o = await signedIn(otherAdmin, TEAM);
    const refused = await o.get(`${AUDIT}?action=sign_out&limit=12&after=${cursor}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).not.toContain(owner.email);
    expect((await c.get(`${AUDIT}?action=sign_in&limit=12&after=${cursor}`)).statusCode).toBe(400);
  });
});
