// The five lifecycle actions share one shape: lock the batch, check the state machine and the
// four-eyes rules, move it, answer in PascalCase. Each route file names its action and fields.
import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import { withTransaction } from '../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../http/idempotency.ts';
import { Email, MerchantAccountNumber } from '../../http/schemas.ts';
import { EXAMPLE } from '../../http/docs.ts';
import type { RouteModule } from '../../http/types.ts';
import type { BatchAction } from './lifecycle.ts';
import { BatchActionResult, BatchNumber } from './schemas.ts';
import { actOnBatch, actionResult, transferFunds, type ActionInput } from './service.ts';

interface ActionRoute {
  method: 'PUT' | 'POST';
  url: string;
  action: BatchAction;
  summary: string;
  description: string;
  /** The body field naming the acting user. */
  actorField: string;
  extra?: TProperties;
  /** Extra input from the body (reject's reason). */
  reason?: (body: Record<string, unknown>) => string;
}

export function actionRoute(def: ActionRoute): RouteModule {
  // The example: the shared fields, and each extra field's own first example.
  const extraExamples = Object.fromEntries(Object.entries(def.extra ?? {}).map(([name, schema]) => [name, (schema.examples as unknown[] | undefined)?.[0]]));
  const Body: TObject = Type.Object(
    { merchantAccountNumber: MerchantAccountNumber, batchNumber: BatchNumber, [def.actorField]: Email(), ...def.extra },
    { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, batchNumber: EXAMPLE.batchNumber, [def.actorField]: EXAMPLE.actor, ...extraExamples }] },
  );
  return (app, { deps }) => {
    app.route({
      method: def.method,
      url: def.url,
      config: { idempotent: true },
      schema: {
        tags: ['Disbursements'],
        summary: def.summary,
        description: def.description,
        body: Body,
        response: { 200: { ...BatchActionResult, description: 'The batch after the action: its status, and the number and total amount of its valid lines.' } },
      },
      handler: async (request, reply) => {
        const b = request.body as Record<string, unknown>;
        const input: ActionInput = {
          merchantAccountNumber: b.merchantAccountNumber as number,
          batchNumber: b.batchNumber as number,
          actionedBy: b[def.actorField] as string,
          reason: def.reason?.(b),
        };
        const body = await withTransaction(deps.db, async (tx) => {
          const batch = def.action === 'transferFunds' ? await transferFunds(tx, input) : await actOnBatch(tx, def.action, input);
          return storeResponse(tx, request, reply, 200, actionResult(batch));
        });
        return sendSerialized(reply, body);
      },
    });
  };
}
