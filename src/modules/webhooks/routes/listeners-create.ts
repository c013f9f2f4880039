// POST /merchants/webhooks/listeners — a temporary listener: a copy of the merchant's events (the
// codes named) for as long as its lease is renewed (`npm run cli -- listen`). The merchant's own
// subscriptions are not touched; a listener that is not renewed lapses by itself. Answers the
// listener's own secrets, once: copies are signed like subscription deliveries, with them.
import { Type } from '@sinclair/typebox';
import { Email, MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { EVENT_CODES } from '../catalogue.ts';
import { CallbackUrl, Listener } from '../schemas.ts';
import { createListener, LISTENER_LEASE_DEFAULT_SECONDS, LISTENER_LEASE_MAX_SECONDS, LISTENER_LEASE_MIN_SECONDS, LISTENERS_PER_MERCHANT_MAX } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  callbackUrl: CallbackUrl,
  eventCodes: Type.Array(Type.Union(EVENT_CODES.map((code) => Type.Literal(code))), {
    minItems: 1,
    maxItems: EVENT_CODES.length,
    description: 'The events to copy (known codes; a repeated code counts once).',
    examples: [['payment.success', 'payrequest.success']],
  }),
  leaseSeconds: Type.Optional(
    Type.Integer({
      minimum: LISTENER_LEASE_MIN_SECONDS,
      maximum: LISTENER_LEASE_MAX_SECONDS,
      default: LISTENER_LEASE_DEFAULT_SECONDS,
      description: 'How long the listener lasts without a renewal.',
    }),
  ),
  capturedBy: Email(),
});

const Created = Type.Object({
  ...Listener.properties,
  webhookSignature: Type.String({ description: 'Sent as X-OneKhusa-Webhook-Signature on the copies.' }),
  signingSecret: Type.String({ description: 'Standard Webhooks secret (whsec_…) that signs the copies. Shown only here.' }),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/merchants/webhooks/listeners', {
    schema: {
      tags: ['Webhooks'],
      summary: 'Start a temporary webhook listener',
      description:
        "Every event of the named codes is also delivered, as a copy, to callbackUrl until expiresAt; renew the lease to keep it (PUT /merchants/webhooks/listeners/renew). " +
        `The merchant's subscriptions are unchanged. Copies carry X-OneKhusa-Listener-Id and webhookId null in the delivery log. At most ${LISTENERS_PER_MERCHANT_MAX} unexpired listeners per merchant (409 E906).`,
      body: Body,
      response: { 201: { ...Created, description: 'The listener, its expiry time (UTC) and the secrets that sign its copies (shown only here).' } },
    },
    handler: async (request, reply) => reply.code(201).send(await createListener(deps, request.body)),
  });
};
export default route;
