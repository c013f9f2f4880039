// The SMTP side of the outbox: one nodemailer transport per process (per SMTP_URL), created on
// the first message, and error texts fit to store (no secret, bounded).
import nodemailer from 'nodemailer';

/** Limits on everything: a dead or stalled mail server costs an attempt at most this long per phase. */
export const SMTP_CONNECTION_TIMEOUT_MS = 10_000;
export const SMTP_GREETING_TIMEOUT_MS = 10_000;
export const SMTP_SOCKET_TIMEOUT_MS = 15_000;
/** Stored errors are cut to this (the column's size). */
export const EMAIL_ERROR_MAX_LENGTH = 500;

type Transport = ReturnType<typeof nodemailer.createTransport>;

// Keyed by URL: a process normally has one; tests start apps against several servers. Bounded.
const transports = new Map<string, Transport>();
const MAX_TRANSPORTS = 8;

/**
 * The process's transport for `smtpUrl`. Not pooled: invitations are few, and a connection per
 * message leaves no idle socket to a server that may have gone away. smtp:// upgrades with
 * STARTTLS when the server offers it; smtps:// is TLS from the start. Query parameters of the URL
 * (nodemailer's own options) override the defaults here.
 */
export function transportFor(smtpUrl: string): Transport {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    if (transports.size >= MAX_TRANSPORTS) {
      const [oldestUrl, oldest] = transports.entries().next().value!;
      oldest.close();
      transports.delete(oldestUrl);
    }
    transport = nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: SMTP_CONNECTION_TIMEOUT_MS,
      greetingTimeout: SMTP_GREETING_TIMEOUT_MS,
      socketTimeout: SMTP_SOCKET_TIMEOUT_MS,
      // nodemailer logs nothing unless asked; the password is in the URL.
      logger: false,
    });
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** The credentials of an SMTP URL, as they could appear in an error text. */
function secretsOf(smtpUrl: string): string[] {
  try {
    const url = new URL(smtpUrl);
    const password = url.password;
    if (!password) return [];
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // keep the raw form only
    }
    return [...new Set([password, decoded])].filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

/** An error as stored in email_outbox.last_error: its code and message, no password, one line, ≤ 500 characters. */
export function describeError(err: unknown, smtpUrl: string): string {
  const e = err as { code?: unknown; message?: unknown; responseCode?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  let text = typeof e?.message === 'string' ? e.message : String(err);
  if (code && !text.startsWith(code)) text = `${code}: ${text}`;
  for (const secret of secretsOf(smtpUrl)) text = text.split(secret).join('***');
  return text.replace(/\s+/g, ' ').trim().slice(0, EMAIL_ERROR_MAX_LENGTH);
}
