// The three actions on a single payout awaiting approval (issue 14; docs.onekhusa.com, Review /
// Approve / Reject Single Disbursement) share one shape: lock the payout, check the state machine
// (lifecycle.ts SINGLE_TRANSITIONS), four eyes and the actor's role, act, answer as the gateway's
// documentation shows for that action. Idempotent with X-Idempotency-Key, as the batch actions.
import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { withTransaction } from '../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../http/idempotency.ts';
import { Email, MerchantAccountNumber } from '../../http/schemas.ts';
import { EXAMPLE } from '../../http/docs.ts';
import type { RouteModule } from '../../http/types.ts';
import type { SingleAction } from './lifecycle.ts';
import type { PayoutRow } from './repository.ts';
import { actOnSinglePayout, type SingleActionInput } from './service.ts';

/**
 * Looser than PayoutReference (12 alphanumerics) on purpose: the documentation's own example
 * ("TXN8J5T2Q1L0Z", 13) names no payout here, and an unknown reference is a 404, not a 400.
 */
export const ActionReference = Type.String({
  minLength: 1,
  maxLength: 20,
  pattern: '^[A-Za-z0-9]+$',
  description: 'Transaction reference number of the single payout (from single/add).',
  examples: ['251105CJZ16U'],
});

interface SingleActionRoute {
  method: 'PUT' | 'POST';
  url: string;
  action: SingleAction;
  summary: string;
  description: string;
  /** The body field naming the acting user. */
  actorField: string;
  extra?: TProperties;
  reason?: (body: Record<string, unknown>) => string;
  result: TSchema;
  answer: (request: FastifyRequest, payout: PayoutRow) => unknown;
}

export function singleActionRoute(def: SingleActionRoute): RouteModule {
  const extraExamples = Object.fromEntries(Object.entries(def.extra ?? {}).map(([name, schema]) => [name, (schema.examples as unknown[] | undefined)?.[0]]));
  const Body: TObject = Type.Object(
    {
      merchantAccountNumber: MerchantAccountNumber,
      transactionReferenceNumber: ActionReference,
      ...def.extra,
      [def.actorField]: Email(),
    },
    { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, transactionReferenceNumber: ActionReference.examples[0], ...extraExamples, [def.actorField]: EXAMPLE.actor }] },
  );
  return (app, { deps }) => {
    app.route({
      method: def.method,
      url: def.url,
      config: { idempotent: true },
      schema: { tags: ['Disbursements'], summary: def.summary, description: def.description, body: Body, response: { 200: def.result } },
      handler: async (request, reply) => {
        const b = request.body as Record<string, unknown>;
        const input: SingleActionInput = {
          merchantAccountNumber: b.merchantAccountNumber as number,
          transactionReferenceNumber: b.transactionReferenceNumber as string,
          actionedBy: b[def.actorField] as string,
          reason: def.reason?.(b),
        };
        const body = await withTransaction(deps.db, async (tx) => {
          const payout = await actOnSinglePayout(tx, def.action, input);
          return storeResponse(tx, request, reply, 200, def.answer(request, payout));
        });
        return sendSerialized(reply, body);
      },
    });
  };
}
