import { Type } from '@sinclair/typebox';
import { DateTime, NullableDateTime, named } from '../../http/schemas.ts';

export const EmailStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('held'), Type.Literal('failed')], {
  description: 'pending: to send; sent: accepted by the SMTP server; held: no SMTP_URL configured, kept here; failed: no attempts left.',
});

/** One message of the outbox as the operator sees it, body included (it may hold a set-password link: operator only). */
export const EmailRecord = Type.Object({
  emailId: Type.Integer(),
  merchantAccountNumber: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The merchant the message is about; null only for a message written without one before migration 0033 (operator_email_outbox).',
  }),
  recipient: Type.String(),
  subject: Type.String(),
  status: EmailStatusSchema,
  attempts: Type.Integer({ description: 'Delivery attempts made.' }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'The last failed attempt\'s error (no secrets, at most 500 characters).' }),
  createdAt: DateTime,
  sentAt: NullableDateTime,
  bodyText: Type.String({ description: 'The plain-text body, as sent (or as it would be sent).' }),
});

// Their names in the OpenAPI document's components.schemas.
named({ EmailRecord });
