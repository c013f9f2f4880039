import { Type } from '@sinclair/typebox';
import { NullableDateTime, named } from '../../http/schemas.ts';
import { CALLBACK_URL_MAX_LENGTH } from './url-guard.ts';

export const EventCode = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9._:-]+$',
  description: 'Event code, e.g. payment.success. Free-form: codes the service does not send are stored but never fire.',
  examples: ['payment.success'],
});

export const CallbackUrl = Type.String({
  minLength: 8,
  maxLength: CALLBACK_URL_MAX_LENGTH,
  description: 'Absolute http(s) URL that receives the events (`callbackURL` is accepted too).',
  examples: ['https://shop.example.mw/hooks/onekhusa'],
});

export const WebhookId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Webhook subscription id.' });

export const WebhookRecord = Type.Object({
  merchantAccountNumber: Type.Integer(),
  webhookId: Type.Integer(),
  eventCode: Type.String(),
  eventName: Type.String(),
  callbackUrl: Type.String(),
  webhookSignature: Type.String({ description: 'Sent as X-OneKhusa-Webhook-Signature; compare by equality.' }),
  signingSecret: Type.String({ description: 'Standard Webhooks secret (whsec_…): verify webhook-signature with it.' }),
  dateCreated: Type.String({ format: 'date-time' }),
  createdBy: Type.String(),
  dateModified: NullableDateTime,
  modifiedBy: Type.Union([Type.String(), Type.Null()]),
});

export const Delivery = Type.Object({
  deliveryId: Type.Integer(),
  webhookId: Type.Union([Type.Integer(), Type.Null()]),
  eventId: Type.Integer(),
  eventCode: Type.String(),
  callbackUrl: Type.String(),
  webhookMessageId: Type.String({ description: 'The webhook-id header: the same on every attempt and redelivery.' }),
  status: Type.String({ description: 'pending, succeeded or failed.' }),
  numberOfAttempts: Type.Integer(),
  isTest: Type.Boolean(),
  listenerId: Type.Union([Type.Integer(), Type.Null()], { description: "Set on a temporary listener's copy (npm run cli -- listen); webhookId is then null." }),
  dateCreated: Type.String({ format: 'date-time' }),
  nextAttemptDate: NullableDateTime,
  dateCompleted: NullableDateTime,
  attempts: Type.Array(
    Type.Object({
      attemptNumber: Type.Integer(),
      attemptedAt: Type.String({ format: 'date-time' }),
      httpStatus: Type.Union([Type.Integer(), Type.Null()]),
      latencyMs: Type.Integer(),
      responseSnippet: Type.Union([Type.String(), Type.Null()], { description: 'First 1 KB of the response body.' }),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export const ListenerId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Temporary listener id (from POST /merchants/webhooks/listeners).' });

export const Listener = Type.Object({
  merchantAccountNumber: Type.Integer(),
  listenerId: Type.Integer(),
  callbackUrl: Type.String(),
  eventCodes: Type.Array(Type.String()),
  leaseSeconds: Type.Integer({ description: 'The lease length; each renewal extends it by this much from then.' }),
  expiresAt: Type.String({ format: 'date-time', description: 'When the listener lapses unless renewed: after it, no copy is sent to it.' }),
});

// Their names in the OpenAPI document's components.schemas.
named({ WebhookRecord, Delivery, Listener });
