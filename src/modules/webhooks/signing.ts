// Both ways a receiver can check a delivery: the gateway's static signature (compared by equality)
// and the Standard Webhooks HMAC (webhook-id, webhook-timestamp, webhook-signature).
import { createHmac, randomBytes } from 'node:crypto';
import { randomAlnum } from '../../lib/ids.ts';

export const WEBHOOK_SIGNATURE_LENGTH = 52;

export function newWebhookSignature(): string {
  return randomAlnum(WEBHOOK_SIGNATURE_LENGTH);
}

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256(key = secret's bytes, "id.timestamp.body")>`, per Standard Webhooks. */
export function standardSignature(signingSecret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(signingSecret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
