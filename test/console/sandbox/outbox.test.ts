// E-mails the console writes, told truthfully (issue 27). Without SMTP_URL no e-mail leaves the
// service: it is held in the outbox. The console then says so (not "on its way") and, in sandbox
// mode, shows the held e-mails where the person is: Sandbox tools › Outbox, for the roles that
// manage the team, with only the signed-in merchant's e-mails, newest first, one e-mail's subject,
// recipient and body (its links clickable, everything escaped). With SMTP_URL set the console says
// the e-mail is on its way. "Forgot password" answers the same for every address either way.
// Production mode: the outbox is the 404 page (sandbox.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, consoleUser, invitationToken, newEmail, textOf, type ConsoleUserInfo } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';
import { merchantsAndAdmin } from '../fixtures.ts';

const OUTBOX = '/console/sandbox/outbox';
const INVITE = '/console/team/invite';
const HOSTILE = '<img src=x onerror=alert(1)>';

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;
let admin: ConsoleUserInfo;
let ipSeq = 0;

beforeAll(async () => {
  t = await startTestApp();
  ({ m, other, admin } = await merchantsAndAdmin(t, { merchant: { accountName: 'Outbox Stores' } }));
});
afterAll(async () => {
  await t?.close();
});

async function signedIn(app: TestApp, user: { email: string; password: string }): Promise<ConsoleClient> {
  ipSeq += 1;
  const c = new ConsoleClient(app, `10.31.0.${ipSeq}`);
  const res = await c.signIn(user.email, user.password);
  expect(res.statusCode, res.body).toBe(303);
  return c;
}

function formKey(html: string, formId: string): string {
  const key = new RegExp(`id="${formId}"[^]*?name="_form" value="([0-9a-f-]{36})"`).exec(html)?.[1];
  if (!key) throw new Error(`no form key in #${formId}`);
  return key;
}

/** Invites `email` from the console; answers where it went. */
async function invite(c: ConsoleClient, email: string): Promise<string> {
  const form = await c.get(INVITE);
  const res = await c.post(INVITE, { firstName: 'Kondwani', lastName: 'Banda', emailAddress: email, phoneNumber: '0881234567', roleId: 'MERC_REVIEWER', _form: formKey(form.body, 'invite-form') });
  expect(res.statusCode, res.body).toBe(303);
  return String(res.headers.location);
}

async function heldEmail(merchantAccountNumber: number, recipient: string, subject: string, body: string, status = 'held'): Promise<number> {
  const { rows } = await t.db.query<{ email_id: number }>(
    `insert into email_outbox (merchant_account_number, recipient, subject, body_text, body_html, status, sent_at) values ($1, $2, $3, $4, '', $5::varchar, case when $5::varchar = 'sent' then now() end) returning email_id`,
    [merchantAccountNumber, recipient, subject, body, status],
  );
  return Number(rows[0].email_id);
}

/** The ids of the e-mails the outbox lists, in its order. */
const listedIds = (html: string) => [...html.matchAll(/<tr id="email-(\d+)"/g)].map((x) => Number(x[1]));

describe('inviting without a mail server (sandbox)', () => {
  it('says the invitation was not sent and links to the outbox, where its link works', async () => {
    const c = await signedIn(t, admin);
    const email = newEmail('held');
    const location = await invite(c, email);
    expect(location).toMatch(/\?notice=notice\.team\.invitedHeld$/);
    const shown = await c.get(location);
    expect(shown.statusCode).toBe(200);
    const notice = textOf(shown.body, 'notice') ?? '';
    expect(notice).not.toContain('on its way');
    expect(notice).toContain('not sent');
    expect(shown.body).toMatch(/id="notice"[^]*?<a [^>]*href="\/console\/sandbox\/outbox"/);
    const ny = await c.get(location.replace('?', '?lang=ny&'));
    expect(textOf(ny.body, 'notice')).not.toBe(notice);

    const list = await c.get(OUTBOX);
    expect(list.statusCode, list.body.slice(0, 500)).toBe(200);
    const { rows } = await t.db.query<{ email_id: number }>('select email_id from email_outbox where lower(recipient) = lower($1)', [email]);
    const id = Number(rows[0].email_id);
    expect(listedIds(list.body)[0]).toBe(id);
    const one = await c.get(`${OUTBOX}/${id}`);
    expect(one.statusCode).toBe(200);
    expect(textOf(one.body, 'email-to')).toBe(email);
    expect(textOf(one.body, 'email-subject')).toContain('Outbox Stores');
    const token = await invitationToken(t, email);
    expect(one.body).toMatch(new RegExp(`<a [^>]*href="http://localhost:80/users/set-password\\?token=${token}"`));
    // Reading an e-mail that may carry a link is in the audit log.
    const audit = await t.db.query('select 1 from console_audit_log where merchant_account_number = $1 and action = $2', [m.merchantAccountNumber, 'sandbox.read_email']);
    expect(audit.rowCount).toBe(1);
  });

  it('a new invitation says the same', async () => {
    const c = await signedIn(t, admin);
    const location = await invite(c, newEmail('again'));
    const page = await c.get(location);
    const res = await c.post(`${location.split('?')[0]}/reinvite`, { _form: formKey(page.body, 'reinvite-form') });
    expect(res.statusCode, res.body).toBe(303);
    expect(String(res.headers.location)).toMatch(/\?notice=notice\.team\.reinvitedHeld$/);
    expect(textOf((await c.get(String(res.headers.location))).body, 'notice')).toContain('not sent');
  });
});

describe('the outbox', () => {
  it('lists the merchant’s held e-mails only, newest first, and escapes what they hold', async () => {
    const c = await signedIn(t, admin);
    const older = await heldEmail(m.merchantAccountNumber, 'a.very.long.address.of.someone@a-long-domain-name.example.mw', 'Older', 'first');
    const hostile = await heldEmail(m.merchantAccountNumber, 'x@shop.mw', HOSTILE, `Hello ${HOSTILE} see https://example.mw/a?b=1&c=2 and javascript:alert(1)`);
    const sent = await heldEmail(m.merchantAccountNumber, 'sent@shop.mw', 'Gone out', 'sent', 'sent');
    const theirs = await heldEmail(other.merchantAccountNumber, 'theirs@shop.mw', 'Theirs', 'https://example.mw/secret');
    const list = await c.get(OUTBOX);
    const ids = listedIds(list.body);
    expect(ids.indexOf(hostile)).toBeLessThan(ids.indexOf(older));
    expect(ids).not.toContain(sent);
    expect(ids).not.toContain(theirs);
    expect(list.body).not.toContain(HOSTILE);
    expect(list.body).toContain('&lt;img src=x onerror=alert(1)&gt;');

    const one = await c.get(`${OUTBOX}/${hostile}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).not.toContain(HOSTILE);
    expect(one.body).toContain('<a href="https://example.mw/a?b=1&amp;c=2"');
    expect(one.body).not.toMatch(/href="javascript:/);
    for (const id of [theirs, sent]) expect((await c.get(`${OUTBOX}/${id}`)).statusCode, String(id)).toBe(404);
    for (const id of ['abc', '0', '99999999999999999999']) expect((await c.get(`${OUTBOX}/${id}`)).statusCode, id).toBe(404);
  });

  it('is for the roles that manage the team: others get 403 and no link from the sandbox tools', async () => {
    const initiator = await consoleUser(t, m, { role: 'MERC_INITIATOR' });
    const c = await signedIn(t, initiator);
    expect((await c.get(OUTBOX)).statusCode).toBe(403);
    expect((await c.get('/console/sandbox')).body).not.toContain(`href="${OUTBOX}"`);
    const a = await signedIn(t, admin);
    expect((await a.get('/console/sandbox')).body).toContain(`href="${OUTBOX}"`);
  });
});

describe('forgot password without a mail server', () => {
  it('says the link was not e-mailed, the same for any address', async () => {
    const asks = async (email: string) => {
      ipSeq += 1;
      const c = new ConsoleClient(t, `10.31.1.${ipSeq}`);
      await c.get('/console/forgot-password');
      const res = await c.post('/console/forgot-password', { email });
      expect(res.statusCode).toBe(200);
      return (textOf(res.body, 'notice') ?? '').replace(email, 'EMAIL');
    };
    const known = await asks(admin.email);
    expect(known).toBe(await asks(newEmail('stranger')));
    expect(known).not.toContain('on its way');
    expect(known).toContain('not sent');
  });
});

describe('with a mail server', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await startTestApp({ SMTP_URL: 'smtp://127.0.0.1:2525' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the invitation and the reset link are on their way', async () => {
    const sm = await newMerchant(s);
    const a = await consoleUser(s, sm, { role: 'MERC_ADMIN' });
    const c = await signedIn(s, a);
    const location = await invite(c, newEmail('smtp'));
    expect(location).toMatch(/\?notice=notice\.team\.invited$/);
    expect(textOf((await c.get(location)).body, 'notice')).toContain('on its way');
    const f = new ConsoleClient(s, '10.31.2.1');
    await f.get('/console/forgot-password');
    expect(textOf((await f.post('/console/forgot-password', { email: a.email })).body, 'notice')).toContain('on its way');
  });
});
