// A browser stand-in for the console over app.inject: it keeps cookies as a browser does (by name;
// Max-Age=0 deletes), sends forms with the CSRF token read from the last page and this service's
// Origin, and follows nothing by itself (tests look at every answer). Plus the steps tests share:
// a merchant user with a password, invited through the API like a real one.
import { expect } from 'vitest';
import type { TestApp, TestMerchant } from '../helpers.ts';
import { BASE } from '../helpers.ts';

/** What app.inject's requests look like to the app: Host localhost:80 over http. */
export const INJECT_ORIGIN = 'http://localhost:80';

export interface Page {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  /** The body's bytes (a download that is not text: a workbook). */
  rawPayload: Buffer;
}

export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  /** The last page's CSRF token (hidden _csrf field). */
  csrf = '';

  /**
   * `ip`: the client address the app sees (the sign-in throttle counts per address, so tests
   * that fail on purpose use their own).
   */
  constructor(
    private readonly t: TestApp,
    readonly ip = '127.0.0.1',
    /** The Origin its POSTs send; null: none. */
    private readonly origin: string | null = INJECT_ORIGIN,
  ) {}

  private cookieHeader(): string | undefined {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  private keep(res: Page): void {
    const raw = res.headers['set-cookie'];
    for (const line of Array.isArray(raw) ? raw : raw ? [String(raw)] : []) {
      const [pair, ...attributes] = String(line).split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attributes.some((a) => a.trim().toLowerCase() === 'max-age=0') || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Page> {
    const cookie = this.cookieHeader();
    const res = await this.t.app.inject({ method: 'GET', url, remoteAddress: this.ip, headers: { ...(cookie ? { cookie } : {}), ...headers } });
    this.keep(res);
    return res;
  }

  /** A form POST with the current CSRF token (unless `fields` sets _csrf) and this origin. */
  async post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const cookie = this.cookieHeader();
    const res = await this.t.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.ip,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(cookie ? { cookie } : {}),
        ...(this.origin !== null ? { origin: this.origin } : {}),
        ...headers,
      },
      payload: new URLSearchParams({ _csrf: this.csrf, ...fields }).toString(),
    });
    this.keep(res);
    return res;
  }

  /** Opens the sign-in page and signs in; returns the answer to the POST. */
  async signIn(email: string, password: string, extra: Record<string, string> = {}): Promise<Page> {
    const form = await this.get('/console/sign-in');
    expect(form.statusCode, form.body).toBe(200);
    return this.post('/console/sign-in', { email, password, ...extra });
  }
}

/** The text of an HTML element with this id (tags dropped, entities of the escaper decoded). */
export function textOf(html: string, id: string): string | undefined {
  const open = new RegExp(`<([a-z0-9]+)[^>]*\\sid="${id}"[^>]*>`).exec(html);
  if (!open) return undefined;
  const start = open.index + open[0].length;
  const end = html.indexOf(`</${open[1]}>`, start);
  return html
    .slice(start, end)
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

let counter = 0;

/** A fresh address (the sign-in throttle counts per address, so tests do not share one). */
export function newEmail(name = 'user'): string {
  counter += 1;
  return `${name}.${Date.now().toString(36)}${counter}@shop.mw`;
}

export interface ConsoleUserInfo {
  userId: string;
  email: string;
  password: string;
}

/** A new access token for `m` (tests move the clock past the 5 minutes a token lives). */
export async function freshAuth(t: TestApp, m: TestMerchant): Promise<{ authorization: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/account/getAccessToken`,
    payload: { apiKey: m.apiKey, apiSecret: m.apiSecret, organisationId: m.organisationId, merchantAccountNumber: m.merchantAccountNumber },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { authorization: `Bearer ${res.json().accessToken as string}` };
}

/** The set-password token of the latest e-mail to `recipient` in the outbox. */
export async function invitationToken(t: TestApp, recipient: string): Promise<string> {
  const { rows } = await t.db.query<{ body_text: string }>('select body_text from email_outbox where lower(recipient) = lower($1) order by email_id desc limit 1', [recipient]);
  const token = /\/users\/set-password\?token=([A-Za-z0-9_-]{43})/.exec(rows[0]?.body_text ?? '')?.[1];
  if (!token) throw new Error(`no set-password link in the outbox for ${recipient}`);
  return token;
}

/** A user of merchant `m` (role code), invited through the API, with the password set through the set-password form. */
export async function consoleUser(t: TestApp, m: TestMerchant, over: { email?: string; role?: string; password?: string; firstName?: string } = {}): Promise<ConsoleUserInfo> {
  const email = over.email ?? newEmail();
  const password = over.password ?? 'Nkhalango ya Dzalanyama 2026';
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/security/merchantUsers/add`,
    headers: await freshAuth(t, m),
    payload: {
      organisationId: m.organisationId,
      merchantAccountNumber: m.merchantAccountNumber,
      firstName: over.firstName ?? 'Thandiwe',
      lastName: 'Phiri',
      emailAddress: email,
      phoneNumber: '0991234567',
      roleId: over.role ?? 'MERC_ADMIN',
      capturedBy: 'admin@shop.mw',
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const userId = String(res.headers['x-user-id']);
  const token = await invitationToken(t, email);
  const set = await t.app.inject({
    method: 'POST',
    url: '/users/set-password',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, password, confirmation: password }).toString(),
  });
  expect(set.statusCode, set.body).toBe(200);
  return { userId, email, password };
}
