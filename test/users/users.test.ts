// Merchant users (product.md §13) and their invitation e-mails, end to end on real parts: the
// app through inject() on a fresh database, a real SMTP server on loopback (smtp-server) that the
// `send_email` job delivers to with nodemailer, the set-password page and its form, and the
// operator's outbox listing (API and CLI). Jobs are run directly (taskList), never by a
// background worker, so each test decides when mail goes out.
import { createHash, randomUUID } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { verify } from '@node-rs/argon2';
import type { JobHelpers } from 'graphile-worker';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { taskList } from '../../src/composition.ts';
import { createLogger } from '../../src/runtime.ts';
import { ADMIN_TOKEN, BASE, clientError, closedPort, dbState, newMerchant, problemOf, runCli, startTestApp, type TestApp, type TestMerchant } from '../helpers.ts';
import { ACTOR, newUserEmail } from '../routes.ts';

const ADD = `${BASE}/security/merchantUsers/add`;
const GET_ALL = `${BASE}/security/merchantUsers/getAll`;
const GET = `${BASE}/security/merchantUsers/get`;
const UPDATE = `${BASE}/security/merchantUsers/update`;
const ACTIVATE = `${BASE}/security/merchantUsers/activate`;
const CLOSE = `${BASE}/security/merchantUsers/close`;
const REINVITE = `${BASE}/security/merchantUsers/reinvite`;
const PAGE = '/users/set-password';
const PASSWORD = 'Mvula ikubwera madzulo 2026';
const SMTP_USER = 'mailer';
const SMTP_PASSWORD = 'Smtp-Secret-Pa55word';

// ---------------------------------------------------------------------------------------------
// A real SMTP server, and just enough MIME to read what it received

interface Received {
  /** Who authenticated (undefined: nobody). */
  user: string | undefined;
  from: string;
  to: string[];
  subject: string;
  messageId: string;
  text: string;
  html: string;
}

interface Smtp {
  port: number;
  messages: Received[];
  close(): Promise<void>;
}

function qpBytes(s: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(...Buffer.from(s[i]));
  }
  return Buffer.from(out);
}

/** RFC 2047 encoded words (runs of them decode together: a character may span two). */
function decodeHeader(value: string): string {
  const word = /=\?[^?]+\?([BbQq])\?([^?]*)\?=/g;
  return value.replace(/=\?[^?]+\?[BbQq]\?[^?]*\?=(?:\s+=\?[^?]+\?[BbQq]\?[^?]*\?=)*/g, (run) =>
    Buffer.concat([...run.matchAll(word)].map(([, enc, data]) => (enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : qpBytes(data.replace(/_/g, ' '))))).toString('utf8'),
  );
}

function parseEntity(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') return qpBytes(body.replace(/=\r?\n/g, '')).toString('utf8');
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

function parseMail(raw: string, from: string, to: string[]): Omit<Received, 'user'> {
  const { headers, body } = parseEntity(raw);
  const parts: Record<string, string> = {};
  const boundary = /boundary="?([^";]+)"?/.exec(headers['content-type'] ?? '')?.[1];
  const entities = boundary ? body.split(`--${boundary}`).slice(1, -1).map((p) => parseEntity(p.replace(/^\r?\n/, ''))) : [{ headers, body }];
  for (const part of entities) parts[(part.headers['content-type'] ?? 'text/plain').split(';')[0].trim()] = decodeBody(part.headers, part.body);
  return { from, to, subject: decodeHeader(headers.subject ?? ''), messageId: headers['message-id'] ?? '', text: parts['text/plain'] ?? '', html: parts['text/html'] ?? '' };
}

/** A real SMTP server on 127.0.0.1 (`port`, else a free one), collecting what it receives. */
async function startSmtp(port = 0): Promise<Smtp> {
  const messages: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // Loopback only; nodemailer sends the credentials of SMTP_URL over it.
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push({ user: session.user as string | undefined, ...parseMail(Buffer.concat(chunks).toString('utf8'), from, session.envelope.rcptTo.map((r) => r.address)) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = ((server as unknown as { server: net.Server }).server.address() as net.AddressInfo).port;
  return { port: bound, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}


// ---------------------------------------------------------------------------------------------
// Helpers

/** What graphile-worker hands a task: only the job's attempt counters matter here. */
const attempt = (attempts: number, maxAttempts = 8) => ({ job: { attempts, max_attempts: maxAttempts } }) as unknown as JobHelpers;

/** Runs every queued send_email job once, as the worker would, and removes those that finished. */
async function runEmailJobs(t: TestApp): Promise<number> {
  const { rows } = await t.db.query<{ id: string; payload: { emailId: number }; max_attempts: number }>(
    `select j.id, j.payload, j.max_attempts from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
      where k.identifier = 'send_email' order by j.id`,
  );
  const task = taskList(t.deps).send_email!;
  for (const job of rows) {
    expect(job.max_attempts).toBe(8);
    await task(job.payload, attempt(1));
    await t.db.query('delete from graphile_worker._private_jobs where id = $1', [job.id]);
  }
  return rows.length;
}

async function emailJobCount(t: TestApp): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(
    `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'send_email'`,
  );
  return rows[0].n;
}

interface OutboxRow {
  email_id: number;
  recipient: string;
  subject: string;
  body_text: string;
  status: string;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
}

async function outbox(t: TestApp, recipient: string): Promise<OutboxRow[]> {
  const { rows } = await t.db.query<OutboxRow>('select * from email_outbox where lower(recipient) = lower($1) order by email_id', [recipient]);
  return rows;
}

const TOKEN_IN_LINK = /\/users\/set-password\?token=([A-Za-z0-9_-]{43})/;

function tokenIn(text: string): string {
  const match = TOKEN_IN_LINK.exec(text);
  if (!match) throw new Error(`no set-password link in: ${text.slice(0, 500)}`);
  return match[1];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

function userBody(m: TestMerchant, over: Record<string, unknown> = {}) {
  return {
    organisationId: m.organisationId,
    merchantAccountNumber: m.merchantAccountNumber,
    firstName: 'Tiwonge',
    lastName: 'Phiri',
    emailAddress: newUserEmail(),
    phoneNumber: '0991234567',
    roleId: 2,
    capturedBy: ACTOR,
    ...over,
  };
}

function addUser(t: TestApp, m: TestMerchant, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: ADD, headers: { ...m.auth, ...headers }, payload: userBody(m, over) });
}

/** Adds a user and returns its id (from the X-User-Id header, checked against the message). */
async function newUser(t: TestApp, m: TestMerchant, over: Record<string, unknown> = {}): Promise<{ userId: string; email: string }> {
  const body = userBody(m, over);
  const res = await t.app.inject({ method: 'POST', url: ADD, headers: m.auth, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  const userId = String(res.headers['x-user-id']);
  // The gateway's text; the id travels in X-User-Id.
  expect(JSON.parse(res.body)).toBe('The user account has been created successfully.');
  expect(userId).toMatch(/^[0-9a-f-]{36}$/);
  return { userId, email: String(body.emailAddress) };
}

function getUser(t: TestApp, m: TestMerchant, userId: string) {
  return t.app.inject({ method: 'GET', url: GET, headers: m.auth, query: { merchantAccountNumber: String(m.merchantAccountNumber), userId } });
}

function reinvite(t: TestApp, m: TestMerchant, userId: string) {
  return t.app.inject({ method: 'POST', url: REINVITE, headers: m.auth, payload: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, userId } });
}

function setStatus(t: TestApp, m: TestMerchant, url: string, userId: string) {
  return t.app.inject({ method: 'PUT', url, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, userId, modifiedBy: ACTOR } });
}

function openPage(t: TestApp, token: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url: PAGE, query: { token, ...query }, headers });
}

function submitForm(t: TestApp, fields: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: PAGE, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
}

/**
 * The token of the latest e-mail to `recipient` (what the link carries): from the outbox while the
 * message waits there, else from the SMTP server that received it (a sent message's stored copy
 * has its link blanked).
 */
async function latestToken(t: TestApp, recipient: string): Promise<string> {
  const rows = await outbox(t, recipient);
  const last = rows[rows.length - 1];
  if (last.status !== 'sent' && last.status !== 'failed') return tokenIn(last.body_text);
  const received = smtp.messages.filter((x) => x.to.some((to) => to.toLowerCase() === recipient.toLowerCase()));
  return tokenIn(received[received.length - 1].text);
}

async function passwordHashOf(t: TestApp, userId: string): Promise<string | null> {
  const { rows } = await t.db.query<{ password_hash: string | null }>('select password_hash from merchant_users where user_id = $1', [userId]);
  return rows[0].password_hash;
}

// ---------------------------------------------------------------------------------------------

let smtp: Smtp;
let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestApp({ SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`, SMTP_FROM: 'Chikondi Stores <no-reply@chikondi.mw>' });
  m = await newMerchant(t, { accountName: 'Chikondi Stores' });
  other = await newMerchant(t, { accountName: 'Other Shop', organisationId: m.organisationId });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

describe('adding a user and setting the password through the e-mailed link', () => {
  it('adds the user, delivers the invitation over SMTP, and its link sets the password exactly once', async () => {
    const email = `Tiwonge.Phiri.${randomUUID().slice(0, 8)}@Shop.mw`;
    const res = await addUser(t, m, { emailAddress: email, phoneNumber: '0991234567', roleId: 2 });
    expect(res.statusCode, res.body).toBe(201);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const userId = String(res.headers['x-user-id']);
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
    // The documented text (docs.onekhusa.com users/add-merchant-user); the id is in X-User-Id.
    expect(JSON.parse(res.body)).toBe('The user account has been created successfully.');

    // The record: normalised phone, no password yet, never a hash.
    const got = await getUser(t, m, userId);
    expect(got.statusCode).toBe(200);
    const user = got.json();
    expect(user).toEqual({
      organisationId: m.organisationId,
      merchantAccountNumber: m.merchantAccountNumber,
      userId,
      firstName: 'Tiwonge',
      lastName: 'Phiri',
      emailAddress: email,
      phoneNumber: '265991234567',
      roleId: 2,
      roleCode: 'MERC_INITIATOR',
      roleName: 'Merchant Initiator',
      statusCode: 'A',
      statusName: 'Active',
      isEmailConfirmed: false,
      isPasswordSet: false,
      capturedBy: ACTOR,
      dateCaptured: user.dateCreated,
      dateCreated: expect.any(String),
      modifiedBy: null,
      dateModified: null,
    });

    // The e-mail and its job were written with the user (same transaction): pending until the job runs.
    const [queued] = await outbox(t, email);
    expect(queued).toMatchObject({ status: 'pending', attempts: 0, recipient: email });
    expect(await emailJobCount(t)).toBeGreaterThanOrEqual(1);
    const before = smtp.messages.length;
    await runEmailJobs(t);

    // It arrived at the real SMTP server, authenticated with SMTP_URL's credentials.
    // (The envelope's domain comes lower-cased, as nodemailer normalises it.)
    const mail = smtp.messages.slice(before).find((x) => x.to.some((to) => to.toLowerCase() === email.toLowerCase()));
    expect(mail, JSON.stringify(smtp.messages.map((x) => x.to))).toBeDefined();
    expect(mail!.user).toBe(SMTP_USER);
    expect(mail!.from).toBe('no-reply@chikondi.mw');
    expect(mail!.subject).toBe('You are invited to Chikondi Stores · Mwaitanidwa ku Chikondi Stores');
    expect(mail!.messageId).toMatch(/^<outbox-\d+\.\d+@chikondi\.mw>$/);
    expect(mail!.text).toContain('Hello Tiwonge,');
    expect(mail!.text).toContain('Moni Tiwonge,');
    expect(mail!.text).toContain('You have been added as a user of Chikondi Stores on OneKhusa (role: Merchant Initiator)');
    expect(mail!.text).toMatch(/expires on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    const token = tokenIn(mail!.text);
    expect(mail!.text).toContain(`http://localhost:80/users/set-password?token=${token}`);
    expect(mail!.text).toContain(`http://localhost:80/users/set-password?token=${token}&lang=ny`);
    // Once sent, the outbox keeps the message but not a usable link.
    const kept = await t.db.query<{ status: string; body_text: string; body_html: string }>('select status, body_text, body_html from email_outbox where lower(recipient) = lower($1)', [email]);
    expect(kept.rows[0].status).toBe('sent');
    expect(kept.rows[0].body_text).not.toContain(token);
    expect(kept.rows[0].body_html).not.toContain(token);
    expect(kept.rows[0].body_text).toContain('set-password?token=[removed]');
    expect(mail!.html).toContain(`/users/set-password?token=${token}&amp;lang=ny`);
    const [sent] = await outbox(t, email);
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
    expect(sent.sent_at).toBeInstanceOf(Date);

    // Only the token's SHA-256 is stored; the link is the only copy of the token.
    const { rows: invitations } = await t.db.query<{ token_hash: Buffer; expires_at: Date; created_at: Date }>('select * from user_invitations where user_id = $1', [userId]);
    expect(invitations).toHaveLength(1);
    expect(invitations[0].token_hash.equals(sha256(token))).toBe(true);
    expect(invitations[0].expires_at.getTime() - invitations[0].created_at.getTime()).toBe(72 * 3_600_000);
    const { rows: leaks } = await t.db.query<{ n: number }>(
      `select count(*)::int as n from (select x::text as r from merchant_users x union all select y::text from user_invitations y) s where r like '%' || $1 || '%'`,
      [token],
    );
    expect(leaks[0].n).toBe(0);

    // The page: HTML, self-contained, in English and Chichewa.
    const page = await openPage(t, token);
    expect(page.statusCode).toBe(200);
    expect(String(page.headers['content-type'])).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toContain("form-action 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('Set your password');
    expect(page.body).toContain(email);
    expect(page.body).toContain('Chikondi Stores');
    expect(page.body).not.toMatch(/<script\b/);
    expect(page.body).not.toMatch(/(src|href)="https?:/);
    const nonce = /style-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)![1];
    expect(page.body.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    const ny = await openPage(t, token, { lang: 'ny' });
    expect(ny.statusCode).toBe(200);
    expect(ny.headers['content-language']).toBe('ny');
    expect(ny.body).toContain('<html lang="ny">');
    expect(ny.body).toContain('Ikani mawu achinsinsi');
    const byHeader = await openPage(t, token, {}, { 'accept-language': 'ny, en;q=0.5' });
    expect(byHeader.body).toContain('<html lang="ny">');

    // Password rules: refused with the form again (400), nothing set.
    const short = await submitForm(t, { token, password: 'too-short', confirmation: 'too-short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('The password must be at least 12 characters long.');
    const long = await submitForm(t, { token, password: 'x'.repeat(129), confirmation: 'x'.repeat(129) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('at most 128 characters');
    const mismatch = await submitForm(t, { token, password: PASSWORD, confirmation: `${PASSWORD}!`, lang: 'ny' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain('Mawu achinsinsi awiriwa sakufanana.');
    expect(await passwordHashOf(t, userId)).toBeNull();

    // The right password: stored as an argon2id hash that verifies, the user shows isPasswordSet.
    const done = await submitForm(t, { token, password: PASSWORD, confirmation: PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Your password is set');
    expect(done.body).not.toContain(token);
    const stored = await passwordHashOf(t, userId);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verify(stored!, PASSWORD)).toBe(true);
    expect(await verify(stored!, `${PASSWORD}x`)).toBe(false);
    expect((await getUser(t, m, userId)).json()).toMatchObject({ isPasswordSet: true, isEmailConfirmed: true });
    const { rows: used } = await t.db.query<{ used_at: Date | null; date_password_set: Date | null }>(
      'select i.used_at, u.date_password_set from user_invitations i join merchant_users u using (user_id) where i.user_id = $1',
      [userId],
    );
    expect(used[0].used_at).toBeInstanceOf(Date);
    expect(used[0].date_password_set).toBeInstanceOf(Date);

    // One time only: the same link now answers 410, on GET and POST, and the hash stays.
    const again = await submitForm(t, { token, password: 'another password 123', confirmation: 'another password 123' });
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('This link is no longer valid');
    expect((await openPage(t, token)).statusCode).toBe(410);
    expect(await passwordHashOf(t, userId)).toBe(stored);

    // E6 once a password is set: 402 E927, and no e-mail.
    const jobs = await emailJobCount(t);
    const refused = await reinvite(t, m, userId);
    expect(refused.statusCode).toBe(402);
    expect(problemOf(refused)).toMatchObject({ errorCode: 'E927', detail: `User ${userId} has already set a password; there is no invitation to resend.` });
    expect(await emailJobCount(t)).toBe(jobs);
    expect(await outbox(t, email)).toHaveLength(1);
  });

  it('answers in Chichewa with Accept-Language: ny', async () => {
    const res = await addUser(t, m, {}, { 'accept-language': 'ny' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-language']).toBe('ny');
    expect(JSON.parse(res.body)).toContain('yapangidwa bwino');
  });

  it('E6 before the password is set: the old link stops working, the new one works', async () => {
    const { userId, email } = await newUser(t, m);
    await runEmailJobs(t);
    const first = await latestToken(t, email);
    expect((await openPage(t, first)).statusCode).toBe(200);

    const res = await reinvite(t, m, userId);
    expect(res.statusCode, res.body).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    // The documented text (docs.onekhusa.com users/reinvite-user).
    expect(JSON.parse(res.body)).toBe('The user invitation email sent');
    const before = smtp.messages.length;
    await runEmailJobs(t);
    const mail = smtp.messages.slice(before).find((x) => x.to.includes(email))!;
    const second = tokenIn(mail.text);
    expect(second).not.toBe(first);
    expect(await outbox(t, email)).toHaveLength(2);

    expect((await openPage(t, first)).statusCode).toBe(410);
    const stale = await submitForm(t, { token: first, password: PASSWORD, confirmation: PASSWORD });
    expect(stale.statusCode).toBe(410);
    expect(await passwordHashOf(t, userId)).toBeNull();
    expect((await openPage(t, second)).statusCode).toBe(200);
    expect((await submitForm(t, { token: second, password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(200);
    expect(await passwordHashOf(t, userId)).toMatch(/^\$argon2id\$/);
  });

  it('closing the user stops the link and E6 (402 E916); activating allows a new invitation', async () => {
    const { userId, email } = await newUser(t, m);
    const token = await latestToken(t, email);
    expect((await openPage(t, token)).statusCode).toBe(200);

    const closed = await setStatus(t, m, CLOSE, userId);
    expect(closed.statusCode).toBe(200);
    expect(JSON.parse(closed.body)).toBe('User account status has been changed successfully');
    expect((await getUser(t, m, userId)).json()).toMatchObject({ statusCode: 'C', statusName: 'Closed', modifiedBy: ACTOR });
    expect((await openPage(t, token)).statusCode).toBe(410);
    expect((await submitForm(t, { token, password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(410);
    expect(await passwordHashOf(t, userId)).toBeNull();

    const before = await dbState(t.db);
    const refused = await reinvite(t, m, userId);
    expect(refused.statusCode).toBe(402);
    expect(problemOf(refused).errorCode).toBe('E916');
    expect(await dbState(t.db)).toEqual(before);
    // Closing again changes nothing and still answers 200.
    expect((await setStatus(t, m, CLOSE, userId)).statusCode).toBe(200);

    const activated = await setStatus(t, m, ACTIVATE, userId);
    expect(activated.statusCode).toBe(200);
    expect(JSON.parse(activated.body)).toBe('User account status has been changed successfully');
    expect((await getUser(t, m, userId)).json()).toMatchObject({ statusCode: 'A', statusName: 'Active' });
    // The revoked link stays revoked; E6 sends a working one.
    expect((await openPage(t, token)).statusCode).toBe(410);
    expect((await reinvite(t, m, userId)).statusCode).toBe(200);
    expect((await openPage(t, await latestToken(t, email))).statusCode).toBe(200);
  });

  it('an expired link answers 410', async () => {
    const { userId, email } = await newUser(t, m);
    const token = await latestToken(t, email);
    await t.db.query(`update user_invitations set created_at = now() - interval '4 days', expires_at = now() - interval '1 second' where user_id = $1`, [userId]);
    expect((await openPage(t, token)).statusCode).toBe(410);
    expect((await submitForm(t, { token, password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(410);
    expect(await passwordHashOf(t, userId)).toBeNull();
  });

  it.each([
    ['no token', {}],
    ['an unknown token', { token: 'A'.repeat(43) }],
    ['a malformed token', { token: '../../etc/passwd' }],
    ['a huge token', { token: 'x'.repeat(5000) }],
    ['two tokens', { token: ['a', 'b'] }],
  ])('GET with %s answers the link-no-longer-valid page (410), never a 500', async (_name, query) => {
    const res = await t.app.inject({ method: 'GET', url: PAGE, query: query as Record<string, string> });
    expect(res.statusCode).toBe(410);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    expect(res.body).toContain('This link is no longer valid');
  });

  it('POSTs that are not the form get pages with 4xx, never a 500', async () => {
    const token = await latestToken(t, (await newUser(t, m)).email);
    const cases = [
      await t.app.inject({ method: 'POST', url: PAGE, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${token}&password=${'p'.repeat(9000)}` }),
      await t.app.inject({ method: 'POST', url: PAGE, headers: { 'content-type': 'text/plain' }, payload: 'hello' }),
      await t.app.inject({ method: 'POST', url: PAGE, headers: { 'content-type': 'application/json' }, payload: '{"token":' }),
      await t.app.inject({ method: 'POST', url: PAGE, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ token: { $ne: null }, password: [1], confirmation: 2 }) }),
      await t.app.inject({ method: 'POST', url: PAGE, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${token}&password=a%00bcdefghijklmn&confirmation=a%00bcdefghijklmn` }),
    ];
    for (const res of cases) {
      expect(res.statusCode, res.body.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body.slice(0, 200)).toBeLessThan(500);
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    }
    expect(cases[0].statusCode).toBe(413);
  });
});

describe('updating a user', () => {
  function update(who: TestMerchant, userId: string, over: Record<string, unknown> = {}) {
    return t.app.inject({
      method: 'PUT',
      url: UPDATE,
      headers: who.auth,
      payload: { organisationId: who.organisationId, merchantAccountNumber: who.merchantAccountNumber, userId, firstName: 'Thoko', lastName: 'Banda', phoneNumber: '+265881234567', roleId: 4, modifiedBy: ACTOR, ...over },
    });
  }

  it('changes names, phone and role; the same address in another case keeps the invitation', async () => {
    const { userId, email } = await newUser(t, m);
    const token = await latestToken(t, email);
    const res = await update(m, userId, { emailAddress: email.toUpperCase() });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toBe('User account has been updated successfully');
    expect((await getUser(t, m, userId)).json()).toMatchObject({
      firstName: 'Thoko',
      lastName: 'Banda',
      emailAddress: email.toUpperCase(),
      phoneNumber: '265881234567',
      roleId: 4,
      roleCode: 'MERC_APPROVER',
      roleName: 'Merchant Approver',
      modifiedBy: ACTOR,
      dateModified: expect.any(String),
    });
    expect((await openPage(t, token)).statusCode).toBe(200);
  });

  it('a new e-mail address revokes the open invitation; E6 sends one to the new address', async () => {
    const { userId, email } = await newUser(t, m);
    const token = await latestToken(t, email);
    const moved = newUserEmail();
    expect((await update(m, userId, { emailAddress: moved })).statusCode).toBe(200);
    expect((await openPage(t, token)).statusCode).toBe(410);
    expect((await reinvite(t, m, userId)).statusCode).toBe(200);
    expect((await outbox(t, moved))).toHaveLength(1);
    expect((await openPage(t, await latestToken(t, moved))).statusCode).toBe(200);
  });

  it("refuses another user's address (any case) with 409 E906 and changes nothing", async () => {
    const first = await newUser(t, m);
    const second = await newUser(t, m);
    const before = await dbState(t.db);
    const res = await update(m, second.userId, { emailAddress: first.email.toUpperCase() });
    expect(clientError(res, 409).errorCode).toBe('E906');
    expect(await dbState(t.db)).toEqual(before);
  });
});

describe('refused input changes nothing', () => {
  /** Sends the request (after a snapshot), expects a 4xx problem of `status`, and that nothing changed. */
  async function refused(send: () => PromiseLike<{ statusCode: number; headers: Record<string, unknown>; body: string }>, status: number) {
    const before = await dbState(t.db);
    const jobs = await emailJobCount(t);
    const answer = await send();
    const p = clientError(answer, status);
    expect(await dbState(t.db)).toEqual(before);
    expect(await emailJobCount(t)).toBe(jobs);
    return p;
  }

  it.each([['not-an-email'], ['a@b'], ['two words@shop.mw'], [''], ['@shop.mw'], [`${'a'.repeat(115)}@shop.mw`]])('e-mail address %j: 400', async (emailAddress) => {
    const before = await dbState(t.db);
    const p = clientError(await addUser(t, m, { emailAddress }), 400);
    expect(p.errorCode).toBe('E900');
    expect(p.errors).toEqual(['Email Address must be a valid e-mail address of at most 120 characters.']);
    expect(await dbState(t.db)).toEqual(before);
  });

  it.each([['260971234567'], ['099123456'], ['2659912345678'], ['0771234567'], ['+260991234567'], ['09912345678'], ['265 991 234 567'], ['0991-234567'], ['phone'], ['']])(
    'phone number %j: 400 naming the Malawian formats',
    async (phoneNumber) => {
      const before = await dbState(t.db);
      const p = clientError(await addUser(t, m, { phoneNumber }), 400);
      expect(p.errors).toEqual([
        'Phone Number must be a Malawian mobile number written 265XXXXXXXXX, +265XXXXXXXXX or 0XXXXXXXXX, whose 9-digit number starts with 8 or 9 (e.g. 0991234567).',
      ]);
      expect(await dbState(t.db)).toEqual(before);
    },
  );

  it.each([
    ['0991234567', '265991234567'],
    ['0881234567', '265881234567'],
    ['265881234567', '265881234567'],
    ['+265991234567', '265991234567'],
    [265991234567, '265991234567'],
  ])('accepts phone number %j, stored as %s', async (phoneNumber, stored) => {
    const res = await addUser(t, m, { phoneNumber });
    expect(res.statusCode, res.body).toBe(201);
    expect((await getUser(t, m, String(res.headers['x-user-id']))).json().phoneNumber).toBe(stored);
  });

  it('an unknown roleId: 400 listing the roles', async () => {
    const p = await refused(() => addUser(t, m, { roleId: 9 }), 400);
    expect(p.errors).toEqual([
      'Role Id 9 does not exist; use one of: MERC_ADMIN or 1 (Merchant Administrator), MERC_INITIATOR or 2 (Merchant Initiator), MERC_REVIEWER or 3 (Merchant Reviewer), MERC_APPROVER or 4 (Merchant Approver), MERC_VIEWER or 5 (Merchant Viewer).',
    ]);
    const { userId } = await newUser(t, m);
    const upd = await refused(
      () => t.app.inject({ method: 'PUT', url: UPDATE, headers: m.auth, payload: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, userId, firstName: 'A', lastName: 'B', phoneNumber: '0991234567', roleId: 6, modifiedBy: ACTOR } }),
      400,
    );
    expect(upd.errors[0]).toMatch(/^Role Id 6 does not exist/);
    await refused(() => addUser(t, m, { roleId: 0 }), 400);
    await refused(() => addUser(t, m, { roleId: 'two' }), 400);
  });

  it.each([
    ['firstName', ''],
    ['firstName', '   '],
    ['lastName', 'x'.repeat(61)],
    ['lastName', 'Phiri\nBcc: x@evil.mw'],
    ['firstName', null],
  ])('%s = %j: 400', async (field, value) => {
    const p = await refused(() => addUser(t, m, { [field]: value }), 400);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]).toMatch(field === 'firstName' ? /^First Name/ : /^Last Name/);
  });

  it('missing fields: 400 naming each', async () => {
    const p = await refused(() => t.app.inject({ method: 'POST', url: ADD, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber } }), 400);
    for (const field of ['Organisation Id', 'First Name', 'Last Name', 'Email Address', 'Phone Number', 'Role Id', 'Captured By']) expect(p.errors).toContain(`${field} is required.`);
  });

  it('a duplicate e-mail address of the merchant, in any case: 409 E906', async () => {
    const { email } = await newUser(t, m);
    const p = await refused(() => addUser(t, m, { emailAddress: email.toUpperCase() }), 409);
    expect(p.errorCode).toBe('E906');
    expect(p.detail).toBe(`A user with e-mail address ${email.toUpperCase()} already exists for this merchant account.`);
    // Another merchant may have a user with that address.
    expect((await addUser(t, other, { emailAddress: email })).statusCode).toBe(201);
  });

  it('an unknown userId: 404 E903 on every user operation', async () => {
    const userId = randomUUID();
    const mac = { merchantAccountNumber: m.merchantAccountNumber };
    const p = await refused(() => getUser(t, m, userId), 404);
    expect(p).toMatchObject({ errorCode: 'E903', detail: `Merchant user ${userId} was not found.` });
    await refused(() => reinvite(t, m, userId), 404);
    await refused(() => setStatus(t, m, CLOSE, userId), 404);
    await refused(() => setStatus(t, m, ACTIVATE, userId), 404);
    await refused(
      () => t.app.inject({ method: 'PUT', url: UPDATE, headers: m.auth, payload: { organisationId: m.organisationId, ...mac, userId, firstName: 'A', lastName: 'B', phoneNumber: '0991234567', roleId: 2, modifiedBy: ACTOR } }),
      404,
    );
  });

  it("another merchant's userId: 404 E903, and that user is unchanged", async () => {
    const foreign = await newUser(t, other);
    const token = await latestToken(t, foreign.email);
    const snapshot = async () => (await t.db.query('select u::text from merchant_users u where user_id = $1', [foreign.userId])).rows;
    const before = await snapshot();
    for (const send of [
      () => getUser(t, m, foreign.userId),
      () => reinvite(t, m, foreign.userId),
      () => setStatus(t, m, CLOSE, foreign.userId),
      () => setStatus(t, m, ACTIVATE, foreign.userId),
      () => t.app.inject({
        method: 'PUT',
        url: UPDATE,
        headers: m.auth,
        payload: { organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber, userId: foreign.userId, firstName: 'Hijack', lastName: 'B', phoneNumber: '0991234567', roleId: 1, modifiedBy: ACTOR },
      }),
    ]) {
      const p = await refused(send, 404);
      expect(p.errorCode).toBe('E903');
      expect(JSON.stringify(p)).not.toContain(String(other.merchantAccountNumber));
    }
    expect(await snapshot()).toEqual(before);
    expect((await openPage(t, token)).statusCode).toBe(200);
  });

  it.each([['not-a-uuid'], ['12345'], ["' or 1=1 --"], ['6f1c2a4e-8b7d-4c1e-9a3f-2d5b7e9c0a1']])('userId %j: 400', async (userId) => {
    const p = await refused(() => getUser(t, m, userId), 400);
    expect(p.errors).toEqual(['User Id must be a user id (a UUID such as 6f1c2a4e-8b7d-4c1e-9a3f-2d5b7e9c0a11).']);
    await refused(() => reinvite(t, m, userId), 400);
    await refused(() => setStatus(t, m, CLOSE, userId), 400);
  });
});

describe('getAll', () => {
  let shop: TestMerchant;
  const people = [
    ['Chisomo', 'Banda', 'chisomo@banda.mw'],
    ['Thokozani', 'Mwale', 'thoko@mwale.mw'],
    ['Thandiwe', 'Phiri', 'thandi@phiri.mw'],
    ['Yamikani', '100% Real', 'yami@real.mw'],
    ['Kondwani', 'Under_score', 'kondwani_b@shop.mw'],
  ];
  const userIds: string[] = [];

  beforeAll(async () => {
    shop = await newMerchant(t, { accountName: 'Paging Shop' });
    for (const [firstName, lastName, emailAddress] of people) userIds.push((await newUser(t, shop, { firstName, lastName, emailAddress })).userId);
  });

  function list(body: Record<string, unknown>) {
    return t.app.inject({ method: 'POST', url: GET_ALL, headers: shop.auth, payload: { merchantAccountNumber: shop.merchantAccountNumber, ...body } });
  }
  const ids = (res: { json(): unknown }) => (res.json() as Array<{ userId: string }>).map((u) => u.userId);

  it('lists the merchant\'s users newest first, paged, without hashes', async () => {
    const all = await list({});
    expect(all.statusCode).toBe(200);
    expect(ids(all)).toEqual([...userIds].reverse());
    expect(all.body).not.toMatch(/argon2|password_?hash|token/i);
    expect((all.json() as Array<Record<string, unknown>>).every((u) => u.merchantAccountNumber === shop.merchantAccountNumber && u.organisationId === shop.organisationId)).toBe(true);

    expect(ids(await list({ pageNumber: 1, numberOfReturnedRows: 2 }))).toEqual([userIds[4], userIds[3]]);
    expect(ids(await list({ pageNumber: 2, numberOfReturnedRows: 2 }))).toEqual([userIds[2], userIds[1]]);
    expect(ids(await list({ pageNumber: 3, numberOfReturnedRows: 2 }))).toEqual([userIds[0]]);
    expect(ids(await list({ pageNumber: 4, numberOfReturnedRows: 2 }))).toEqual([]);
    expect(ids(await list({ pageNumber: 2, numberOfReturnedRows: 2, isIncremental: true }))).toEqual([userIds[4], userIds[3], userIds[2], userIds[1]]);
  });

  it('searches by first name, last name or e-mail address, case-insensitively, with % and _ taken literally', async () => {
    expect(ids(await list({ searchBy: 'FirstName', searchText: 'THO' }))).toEqual([userIds[1]]);
    expect(ids(await list({ searchBy: 'FirstName', searchText: 'th' })).sort()).toEqual([userIds[1], userIds[2]].sort());
    expect(ids(await list({ searchBy: 'LastName', searchText: 'phiri' }))).toEqual([userIds[2]]);
    expect(ids(await list({ searchBy: 'EmailAddress', searchText: '@MWALE.mw' }))).toEqual([userIds[1]]);
    expect(ids(await list({ searchBy: 'LastName', searchText: '100%' }))).toEqual([userIds[3]]);
    expect(ids(await list({ searchBy: 'LastName', searchText: '%' }))).toEqual([userIds[3]]);
    expect(ids(await list({ searchBy: 'LastName', searchText: 'r_' }))).toEqual([userIds[4]]);
    expect(ids(await list({ searchBy: 'EmailAddress', searchText: '_' }))).toEqual([userIds[4]]);
    // Without searchBy: any of the three.
    expect(ids(await list({ searchText: 'phiri' }))).toEqual([userIds[2]]);
    expect(ids(await list({ searchBy: 'FirstName', searchText: '' }))).toHaveLength(5);
  });

  it("never lists another merchant's users", async () => {
    const res = await t.app.inject({ method: 'POST', url: GET_ALL, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, numberOfReturnedRows: 1000 } });
    expect(res.statusCode).toBe(200);
    for (const id of userIds) expect(ids(res)).not.toContain(id);
  });

  it.each([
    [{ numberOfReturnedRows: 1001 }],
    [{ numberOfReturnedRows: 0 }],
    [{ pageNumber: 0 }],
    [{ searchBy: 'PhoneNumber', searchText: '265' }],
    [{ searchText: 'x'.repeat(101) }],
  ])('refuses %j with 400', async (body) => {
    expect(clientError(await list(body), 400).errorCode).toBe('E900');
  });
});

describe('the e-mail job when SMTP fails', () => {
  let down: TestApp;
  let dm: TestMerchant;

  beforeAll(async () => {
    down = await startTestApp({ SMTP_URL: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${await closedPort()}` });
    dm = await newMerchant(down);
  });
  afterAll(() => down.close());

  async function queuedEmailId(): Promise<{ emailId: number; email: string }> {
    const { email } = await newUser(down, dm);
    return { emailId: (await outbox(down, email))[0].email_id, email };
  }

  it('counts each failed attempt with its error (no password), throws to be retried, and marks the last one failed', async () => {
    const { emailId, email } = await queuedEmailId();
    const task = taskList(down.deps).send_email!;
    for (let n = 1; n <= 7; n++) {
      await expect(task({ emailId }, attempt(n))).rejects.toThrow(/not sent/);
      const [row] = await outbox(down, email);
      expect(row).toMatchObject({ status: 'pending', attempts: n });
      expect(row.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
      expect(row.last_error!.length).toBeLessThanOrEqual(500);
      expect(row.last_error).not.toContain(SMTP_PASSWORD);
    }
    await expect(task({ emailId }, attempt(8))).resolves.toBeUndefined();
    const [failed] = await outbox(down, email);
    expect(failed).toMatchObject({ status: 'failed', attempts: 8, sent_at: null });
    // A failed message is final: running its job again changes nothing.
    await task({ emailId }, attempt(8));
    expect((await outbox(down, email))[0]).toMatchObject({ status: 'failed', attempts: 8 });
  });

  it("gives up on the job's last attempt whatever the row counted", async () => {
    const { emailId, email } = await queuedEmailId();
    await expect(taskList(down.deps).send_email!({ emailId }, attempt(3, 3))).resolves.toBeUndefined();
    expect((await outbox(down, email))[0]).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('stops when the server stops, and delivers once it is back (real server, same transport)', async () => {
    const flaky = await startSmtp();
    const app = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${flaky.port}` });
    try {
      const shop = await newMerchant(app);
      const { email } = await newUser(app, shop);
      const emailId = (await outbox(app, email))[0].email_id;
      const port = flaky.port;
      await flaky.close();
      await expect(taskList(app.deps).send_email!({ emailId }, attempt(1))).rejects.toThrow();
      expect((await outbox(app, email))[0]).toMatchObject({ status: 'pending', attempts: 1 });
      // The same address again: a new server on the old port.
      const back = await startSmtp(port);
      try {
        await taskList(app.deps).send_email!({ emailId }, attempt(2));
        expect((await outbox(app, email))[0]).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
        expect(back.messages.map((x) => x.to)).toEqual([[email]]);
      } finally {
        await back.close();
      }
    } finally {
      await app.close();
    }
  });

  it('stores a refused login without the password', async () => {
    const wrong = 'Wrong-Smtp-Password-42';
    const app = await startTestApp({ SMTP_URL: `smtp://${SMTP_USER}:${encodeURIComponent(wrong)}@127.0.0.1:${smtp.port}` });
    try {
      const { email } = await newUser(app, await newMerchant(app));
      const emailId = (await outbox(app, email))[0].email_id;
      await expect(taskList(app.deps).send_email!({ emailId }, attempt(1))).rejects.toThrow(/not sent/);
      const [row] = await outbox(app, email);
      expect(row).toMatchObject({ status: 'pending', attempts: 1 });
      expect(row.last_error).toMatch(/^EAUTH/);
      expect(row.last_error).not.toContain(wrong);
    } finally {
      await app.close();
    }
  });

  it('ignores a job without a valid emailId, and one whose message is gone', async () => {
    const task = taskList(down.deps).send_email!;
    await expect(task({}, attempt(1))).resolves.toBeUndefined();
    await expect(task({ emailId: 'x' }, attempt(1))).resolves.toBeUndefined();
    await expect(task({ emailId: 987654321 }, attempt(1))).resolves.toBeUndefined();
  });
});

describe('without SMTP_URL', () => {
  let held: TestApp;
  let hm: TestMerchant;
  let url: string;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  beforeAll(async () => {
    held = await startTestApp();
    hm = await newMerchant(held, { accountName: 'Held Shop' });
    await held.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(held.app.server.address() as net.AddressInfo).port}`;
  });
  afterAll(() => held.close());

  const cli = (args: string[]) => runCli(args, { ONEKHUSA_URL: url, ADMIN_TOKEN });

  it('holds the invitation in the outbox, where the operator reads it (API and CLI), and its link works', async () => {
    const { email } = await newUser(held, hm, { firstName: 'Grace' });
    await runEmailJobs(held);
    const [row] = await outbox(held, email);
    expect(row).toMatchObject({ status: 'held', attempts: 0, sent_at: null, last_error: null });

    const res = await held.app.inject({ method: 'GET', url: '/admin/v1/emails', headers: admin, query: { status: 'held', recipient: email.toUpperCase() } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const listed = res.json() as Array<Record<string, unknown>>;
    expect(listed).toEqual([
      {
        emailId: row.email_id,
        merchantAccountNumber: hm.merchantAccountNumber,
        recipient: email,
        subject: 'You are invited to Held Shop · Mwaitanidwa ku Held Shop',
        status: 'held',
        attempts: 0,
        lastError: null,
        createdAt: expect.any(String),
        sentAt: null,
        bodyText: row.body_text,
      },
    ]);
    const token = tokenIn(String(listed[0].bodyText));
    expect((await openPage(held, token)).statusCode).toBe(200);

    const printed = await cli(['emails', 'list', '--status', 'held', '--recipient', email]);
    expect(printed.stderr).toBe('');
    expect(printed.code).toBe(0);
    const fromCli = JSON.parse(printed.stdout) as Array<Record<string, unknown>>;
    expect(fromCli).toEqual(listed);
    expect(String(fromCli[0].bodyText)).toContain(`/users/set-password?token=${token}`);
  });

  it('lists newest first with paging and filters', async () => {
    const emails: string[] = [];
    for (let i = 0; i < 3; i++) emails.push((await newUser(held, hm)).email);
    const page = (query: Record<string, string>) => held.app.inject({ method: 'GET', url: '/admin/v1/emails', headers: admin, query });
    const first = (await page({ numberOfReturnedRows: '2' })).json() as Array<{ recipient: string; status: string }>;
    expect(first.map((e) => e.recipient)).toEqual([emails[2], emails[1]]);
    const second = (await page({ numberOfReturnedRows: '2', pageNumber: '2' })).json() as Array<{ recipient: string }>;
    expect(second[0].recipient).toBe(emails[0]);
    expect(((await page({ status: 'pending' })).json() as Array<{ status: string }>).every((e) => e.status === 'pending')).toBe(true);
    expect(((await page({ status: 'sent' })).json() as unknown[]).length).toBe(0);

    const viaCli = await cli(['emails', 'list', '--limit', '1', '--page', '2']);
    expect(viaCli.code).toBe(0);
    expect((JSON.parse(viaCli.stdout) as Array<{ recipient: string }>).map((e) => e.recipient)).toEqual([emails[1]]);
  });

  it("queues the job with the message's key, merchant first; the key with another merchant moves nothing", async () => {
    const { email } = await newUser(held, hm);
    const [row] = await outbox(held, email);
    const { rows: jobs } = await held.db.query<{ payload: unknown }>(
      `select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
        where k.identifier = 'send_email' and (j.payload->>'emailId')::bigint = $1`,
      [row.email_id],
    );
    expect(jobs.map((j) => j.payload)).toEqual([{ merchantAccountNumber: hm.merchantAccountNumber, emailId: Number(row.email_id) }]);
    const other = await newMerchant(held);
    await taskList(held.deps).send_email!({ merchantAccountNumber: other.merchantAccountNumber, emailId: Number(row.email_id) }, attempt(1));
    expect((await outbox(held, email))[0]).toMatchObject({ status: 'pending' });
    await runEmailJobs(held);
    expect((await outbox(held, email))[0]).toMatchObject({ status: 'held' });
  });

  it('an e-mail written without a merchant before migration 0033 is held by its job and listed with no merchant (API and CLI)', async () => {
    const email = `operator-${randomUUID().slice(0, 8)}@onekhusa.mw`;
    // As 0033 moved it: its id from email_outbox's sequence, its job naming it by id alone.
    const { rows } = await held.db.query<{ email_id: string }>(
      `insert into operator_email_outbox (email_id, recipient, subject, body_text, body_html, status, attempts, created_at)
       values (nextval(pg_get_serial_sequence('email_outbox', 'email_id')), $1, 'Operator notice', 'For the operator', '<p>For the operator</p>', 'pending', 0, now())
       returning email_id`,
      [email],
    );
    const emailId = Number(rows[0].email_id);
    await taskList(held.deps).send_email!({ emailId }, attempt(1));
    const res = await held.app.inject({ method: 'GET', url: '/admin/v1/emails', headers: admin, query: { status: 'held', recipient: email } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      {
        emailId,
        merchantAccountNumber: null,
        recipient: email,
        subject: 'Operator notice',
        status: 'held',
        attempts: 0,
        lastError: null,
        createdAt: expect.any(String),
        sentAt: null,
        bodyText: 'For the operator',
      },
    ]);
    const printed = await cli(['emails', 'list', '--recipient', email]);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(res.json());
  });

  it.each([
    [{ numberOfReturnedRows: '101' }, 400],
    [{ numberOfReturnedRows: '0' }, 400],
    [{ status: 'lost' }, 400],
    [{ recipient: 'not-an-email' }, 400],
  ])('refuses %j', async (query, status) => {
    clientError(await held.app.inject({ method: 'GET', url: '/admin/v1/emails', headers: admin, query }), status);
  });

  it('needs the operator token', async () => {
    expect(problemOf(await held.app.inject({ method: 'GET', url: '/admin/v1/emails' })).errorCode).toBe('E901');
    expect((await held.app.inject({ method: 'GET', url: '/admin/v1/emails', headers: hm.auth })).statusCode).toBe(401);
    const cliRefused = await cli(['emails', 'list', '--admin-token', 'not-the-admin-token-at-all']);
    expect(cliRefused.code).toBe(1);
    expect(JSON.parse(cliRefused.stderr)).toMatchObject({ status: 401 });
  });

  it.each([[['emails', 'list', '--status', 'lost']], [['emails', 'frobnicate']], [['emails', 'list', '--page', 'two']], [['emails', 'list', '--after', '5']]])('CLI exits 2 on %j', async (args) => {
    const res = await cli(args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: /);
  });
});

describe('secrets', () => {
  it('no token, password or hash reaches the logs or the merchant API', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger({ logLevel: 'trace' }, sink);
    const logged = await buildApp({ ...t.deps, log, config: { ...t.deps.config, logLevel: 'trace' } });
    try {
      const body = userBody(m);
      const email = String(body.emailAddress);
      const add = await logged.app.inject({ method: 'POST', url: ADD, headers: m.auth, payload: body });
      expect(add.statusCode).toBe(201);
      const userId = String(add.headers['x-user-id']);
      const sendEmail = taskList({ ...t.deps, log }).send_email!;
      await sendEmail({ emailId: (await outbox(t, email))[0].email_id }, attempt(1));
      const token = await latestToken(t, email);
      expect(add.body).not.toContain(token);
      expect((await logged.app.inject({ method: 'GET', url: `${PAGE}?token=${token}&lang=ny` })).statusCode).toBe(200);
      const done = await logged.app.inject({
        method: 'POST',
        url: PAGE,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ token, password: PASSWORD, confirmation: PASSWORD }).toString(),
      });
      expect(done.statusCode).toBe(200);
      const hash = (await passwordHashOf(t, userId))!;
      const reads = [
        await logged.app.inject({ method: 'GET', url: GET, headers: m.auth, query: { merchantAccountNumber: String(m.merchantAccountNumber), userId } }),
        await logged.app.inject({ method: 'POST', url: GET_ALL, headers: m.auth, payload: { merchantAccountNumber: m.merchantAccountNumber, numberOfReturnedRows: 1000 } }),
      ];
      const all = lines.join('');
      expect(lines.length).toBeGreaterThan(4);
      // The page's request is logged by its path alone (http/request-log.ts): the token stays out.
      expect(all).toMatch(/"path":"\/users\/set-password"/);
      for (const secret of [token, PASSWORD, hash, hash.split('$').pop()!, SMTP_PASSWORD]) {
        expect(all).not.toContain(secret);
        for (const res of reads) expect(res.body).not.toContain(secret);
      }
      for (const res of reads) expect(res.body).not.toMatch(/argon2/);
    } finally {
      await logged.app.close();
    }
  });
});
