// Two-factor sign-in in the console over HTTP (app.inject with a cookie-keeping client): enrolment
// from the security page (QR code, typed key, a code to prove it, recovery codes once, the user's
// other sessions ended), the code step after the right password (bound to the browser, replay and
// recovery codes, throttled on a key the password does not reset, a lock with its e-mail), turning
// it off with a code, and CONSOLE_REQUIRE_2FA sending administrators and approvers to enrol first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { base32Decode, hotp, totpStep, TOTP_STEP_SECONDS } from '../../../src/lib/totp.ts';
import { LOCK_AFTER_FAILURES } from '../../../src/modules/console/kit/throttle.ts';
import { ConsoleClient, consoleUser, textOf, type ConsoleUserInfo } from '../client.ts';
import { newMerchant, startTestApp, type TestApp, type TestMerchant } from '../../helpers.ts';

let t: TestApp;
let m: TestMerchant;
let ipSeq = 0;

beforeAll(async () => {
  t = await startTestApp();
  m = await newMerchant(t);
});
afterAll(async () => {
  await t?.close();
});

/** A client of its own address (the sign-in throttle counts per address). */
function client(app = t): ConsoleClient {
  ipSeq += 1;
  return new ConsoleClient(app, `10.20.${Math.floor(ipSeq / 250)}.${ipSeq % 250}`);
}

function codeNow(secret: string, app = t): string {
  return hotp(base32Decode(secret)!, totpStep(app.clock.now().getTime()));
}

/** Moves the clock to the next authenticator step (a code is accepted once). */
function nextStep(app = t): void {
  app.clock.advance(TOTP_STEP_SECONDS * 1000);
}

/** Signs in with the password and enrols from the security page; answers the secret and the recovery codes. */
async function enrol(c: ConsoleClient, user: ConsoleUserInfo, app = t): Promise<{ secret: string; recovery: string[] }> {
  expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);
  // The page gives the session's CSRF token (the sign-in page's was the pre-session's).
  expect((await c.get('/console/security')).statusCode).toBe(200);
  const begun = await c.post('/console/security/two-factor', {});
  expect(begun.statusCode, begun.body).toBe(200);
  const secret = textOf(begun.body, 'secret')!.replace(/\s/g, '');
  const done = await c.post('/console/security/two-factor/confirm', { code: codeNow(secret, app) });
  expect(done.statusCode, done.body).toBe(200);
  const recovery = [...done.body.matchAll(/<li><code>([A-Z0-9-]{11})<\/code><\/li>/g)].map((x) => x[1]);
  return { secret, recovery };
}

async function auditActions(userId: string, app = t): Promise<Array<{ action: string; detail: Record<string, unknown> }>> {
  const { rows } = await app.db.query<{ action: string; detail: Record<string, unknown> }>('select action, detail from console_audit_log where user_id = $1 order by at', [userId]);
  return rows;
}

describe('two-factor enrolment from the security page', () => {
  it('shows a QR code and the key, refuses a wrong code with the same key, then gives ten recovery codes once and ends the other sessions', async () => {
    const user = await consoleUser(t, m);
    const elsewhere = client();
    expect((await elsewhere.signIn(user.email, user.password)).statusCode).toBe(303);
    const c = client();
    expect((await c.signIn(user.email, user.password)).statusCode).toBe(303);

    const security = await c.get('/console/security');
    expect(security.statusCode).toBe(200);
    expect(textOf(security.body, 'two-factor-status')).toMatch(/^Off/);

    const begun = await c.post('/console/security/two-factor', {});
    expect(begun.statusCode).toBe(200);
    expect(begun.body).toMatch(/<svg class="qr"[^>]*viewBox="0 0 \d+ \d+"[^>]*role="img"/);
    expect(begun.body).toMatch(/<path d="(M\d+ \d+h1v1h-1z)+" fill="#000"/);
    const secret = textOf(begun.body, 'secret')!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    const wrong = await c.post('/console/security/two-factor/confirm', { code: codeNow(secret) === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(422);
    expect(textOf(wrong.body, 'secret')!.replace(/\s/g, '')).toBe(secret);

    const done = await c.post('/console/security/two-factor/confirm', { code: codeNow(secret) });
    expect(done.statusCode, done.body).toBe(200);
    const codes = [...done.body.matchAll(/<li><code>([A-Z0-9-]{11})<\/code><\/li>/g)].map((x) => x[1]);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);

    // This browser goes on; the one signed in with the password alone is out.
    expect((await c.get('/console')).statusCode).toBe(200);
    const out = await elsewhere.get('/console');
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toMatch(/^\/console\/sign-in\?expired=1/);

    const after = await c.get('/console/security');
    expect(textOf(after.body, 'two-factor-status')).toMatch(/^On .*Recovery codes left: 10\./);
    // A confirmed authenticator is not replaced by starting again.
    expect((await c.post('/console/security/two-factor', {})).statusCode).toBe(409);
    expect((await auditActions(user.userId)).map((a) => a.action)).toContain('two_factor_enrolled');
  });
});

describe('signing in with a second factor', () => {
  it('asks for a code after the right password and starts no session before it; a code is accepted once', async () => {
    const user = await consoleUser(t, m);
    const { secret } = await enrol(client(), user);
    nextStep();

    const c = client();
    const asked = await c.signIn(user.email, user.password);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('id="second-factor"');
    expect([...c.cookies.keys()].some((k) => k.includes('session') && !k.includes('pre'))).toBe(false);
    expect((await c.get('/console')).statusCode).toBe(303);

    const again = await c.signIn(user.email, user.password);
    const ticket = /name="ticket" value="([^"]+)"/.exec(again.body)![1];
    const wrong = await c.post('/console/sign-in/code', { ticket, code: codeNow(secret) === '123456' ? '654321' : '123456' });
    expect(wrong.statusCode).toBe(401);
    expect(textOf(wrong.body, 'error')).toBe('That code is not right, or it was already used.');

    const code = codeNow(secret);
    const ok = await c.post('/console/sign-in/code', { ticket: /name="ticket" value="([^"]+)"/.exec(wrong.body)![1], code });
    expect(ok.statusCode, ok.body).toBe(303);
    expect(ok.headers.location).toBe('/console');
    expect((await c.get('/console')).statusCode).toBe(200);

    // The same code again, in another browser within its 30 seconds: refused.
    const other = client();
    const asked2 = await other.signIn(user.email, user.password);
    const replay = await other.post('/console/sign-in/code', { ticket: /name="ticket" value="([^"]+)"/.exec(asked2.body)![1], code });
    expect(replay.statusCode).toBe(401);

    const signIns = (await auditActions(user.userId)).filter((a) => a.action === 'sign_in');
    expect(signIns.at(-1)?.detail).toEqual({ secondFactor: 'code' });
    expect((await auditActions(user.userId)).map((a) => a.action)).toContain('two_factor_failed');
  });

  it('takes a recovery code once, and the ticket only from the browser it was given to', async () => {
    const user = await consoleUser(t, m);
    const { recovery } = await enrol(client(), user);

    const c = client();
    const asked = await c.signIn(user.email, user.password);
    const ticket = /name="ticket" value="([^"]+)"/.exec(asked.body)![1];

    // Another browser (its own pre-session cookie) cannot use this browser's ticket.
    const thief = client();
    await thief.get('/console/sign-in');
    const stolen = await thief.post('/console/sign-in/code', { ticket, code: recovery[0] });
    expect(stolen.statusCode).toBe(400);

    // Typed in lower case with spaces: still the code.
    const ok = await c.post('/console/sign-in/code', { ticket, code: ` ${recovery[0].toLowerCase()} ` });
    expect(ok.statusCode, ok.body).toBe(303);
    const status = await c.get('/console/security');
    expect(textOf(status.body, 'two-factor-status')).toMatch(/Recovery codes left: 9\./);

    const d = client();
    const asked2 = await d.signIn(user.email, user.password);
    const used = await d.post('/console/sign-in/code', { ticket: /name="ticket" value="([^"]+)"/.exec(asked2.body)![1], code: recovery[0] });
    expect(used.statusCode).toBe(401);
    expect((await auditActions(user.userId)).filter((a) => a.action === 'sign_in').at(-1)?.detail).toEqual({ secondFactor: 'recovery' });
  });

  it('refuses a ticket past its five minutes', async () => {
    const user = await consoleUser(t, m);
    const { secret } = await enrol(client(), user);
    const c = client();
    const asked = await c.signIn(user.email, user.password);
    t.clock.advance(5 * 60_000 + 1000);
    const late = await c.post('/console/sign-in/code', { ticket: /name="ticket" value="([^"]+)"/.exec(asked.body)![1], code: codeNow(secret) });
    expect(late.statusCode).toBe(400);
    expect(textOf(late.body, 'error')).toBe('Signing in took too long. Please sign in again.');
  });

  it('locks after ten wrong codes however often the right password is given again, and e-mails the user to change it', async () => {
    const user = await consoleUser(t, m);
    const { secret } = await enrol(client(), user);
    nextStep();
    const c = client();
    let last = await c.signIn(user.email, user.password);
    for (let i = 1; i <= LOCK_AFTER_FAILURES; i++) {
      // The right password again each time: it must not reset the count of wrong codes.
      last = await c.signIn(user.email, user.password);
      expect(last.statusCode, `attempt ${i}`).toBe(200);
      const ticket = /name="ticket" value="([^"]+)"/.exec(last.body)![1];
      const wrongCode = codeNow(secret) === '000000' ? '999999' : '000000';
      last = await c.post('/console/sign-in/code', { ticket, code: wrongCode });
      expect(last.statusCode, `attempt ${i}`).toBe(i < LOCK_AFTER_FAILURES ? 401 : 429);
      // From the fifth, a back-off (of the account and the address): the test waits it out on the clock.
      if (i < LOCK_AFTER_FAILURES) t.clock.advance(Number(last.headers['retry-after'] ?? 0) * 1000);
    }
    expect(last.statusCode).toBe(429);
    expect(textOf(last.body, 'error')).toMatch(/paused|locked/i);

    const right = await c.signIn(user.email, user.password);
    const refused = await c.post('/console/sign-in/code', { ticket: /name="ticket" value="([^"]+)"/.exec(right.body)![1], code: codeNow(secret) });
    expect(refused.statusCode).toBe(429);
    expect((await c.get('/console')).statusCode).toBe(303);

    const { rows } = await t.db.query<{ subject: string; body_text: string }>('select subject, body_text from email_outbox where lower(recipient) = lower($1) order by email_id', [user.email]);
    const lock = rows.filter((r) => r.subject.startsWith('Signing in to'));
    expect(lock).toHaveLength(1);
    expect(lock[0].body_text).toContain('then a wrong authenticator code');
    expect(lock[0].body_text).toContain('your password is known to someone else');
    expect((await auditActions(user.userId)).filter((a) => a.action === 'account_locked').map((a) => a.detail.step)).toEqual(['second_factor']);
  });
});

describe('turning two-factor sign-in off', () => {
  it('takes a current code; a wrong one changes nothing', async () => {
    const user = await consoleUser(t, m);
    const c = client();
    const { secret } = await enrol(c, user);
    nextStep();
    const wrong = await c.post('/console/security/two-factor/remove', { code: codeNow(secret) === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(422);
    expect(textOf(wrong.body, 'two-factor-status')).toMatch(/^On/);
    const off = await c.post('/console/security/two-factor/remove', { code: codeNow(secret) });
    expect(off.statusCode).toBe(200);
    expect(textOf(off.body, 'notice')).toBe('Two-factor sign-in is off.');
    expect(textOf(off.body, 'two-factor-status')).toMatch(/^Off/);
    // Signing in asks for the password only again.
    expect((await client().signIn(user.email, user.password)).statusCode).toBe(303);
    expect((await auditActions(user.userId)).map((a) => a.action)).toContain('two_factor_removed');
  });
});

describe('CONSOLE_REQUIRE_2FA', () => {
  it('is on by default in production mode and off in the sandbox', () => {
    const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', JWT_SECRET: 'x'.repeat(40), ADMIN_TOKEN: 'y'.repeat(40) };
    expect(loadConfig(base).consoleRequireTwoFactor).toBe(false);
    expect(loadConfig({ ...base, APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw' }).consoleRequireTwoFactor).toBe(true);
    expect(loadConfig({ ...base, APP_MODE: 'production', PUBLIC_BASE_URL: 'https://pay.example.mw', CONSOLE_REQUIRE_2FA: 'false' }).consoleRequireTwoFactor).toBe(false);
  });

  it('sends administrators and approvers to the security page until they enrol; other roles are not asked', async () => {
    const strict = await startTestApp({}, { consoleRequireTwoFactor: true });
    try {
      const sm = await newMerchant(strict);
      const admin = await consoleUser(strict, sm, { role: 'MERC_ADMIN' });
      const approver = await consoleUser(strict, sm, { role: 'MERC_APPROVER' });
      const viewer = await consoleUser(strict, sm, { role: 'MERC_VIEWER' });

      const v = client(strict);
      expect((await v.signIn(viewer.email, viewer.password)).statusCode).toBe(303);
      expect((await v.get('/console')).statusCode).toBe(200);

      const a = client(strict);
      const signedIn = await a.signIn(admin.email, admin.password);
      expect(signedIn.statusCode).toBe(303);
      for (const path of ['/console', '/console/collections', '/console/statements']) {
        const sent = await a.get(path);
        expect(sent.statusCode, path).toBe(303);
        expect(sent.headers.location).toBe('/console/security?required=1');
      }
      const security = await a.get('/console/security?required=1');
      expect(security.statusCode).toBe(200);
      expect(textOf(security.body, 'required')).toMatch(/set up two-factor sign-in before you continue/);

      const begun = await a.post('/console/security/two-factor', {});
      const secret = textOf(begun.body, 'secret')!.replace(/\s/g, '');
      expect((await a.post('/console/security/two-factor/confirm', { code: codeNow(secret, strict) })).statusCode).toBe(200);
      expect((await a.get('/console')).statusCode).toBe(200);

      const p = client(strict);
      await p.signIn(approver.email, approver.password);
      expect((await p.get('/console/payouts')).headers.location).toBe('/console/security?required=1');
      // Signing out is always possible.
      await p.get('/console/security');
      const out = await p.post('/console/sign-out', {});
      expect(out.statusCode).toBe(303);
      expect(out.headers.location).toBe('/console/sign-in?signedOut=1');
    } finally {
      await strict.close();
    }
  });
});
