// E8 POST /disbursements/batch/addJson — up to 50,000 payouts in one request. Idempotent.
// Structural problems are a 400 naming the lines (transactions[123].transactionAmount, the first
// 100); everything else is checked by the validation job, which marks invalid lines E.
import { Type } from '@sinclair/typebox';
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import type { RouteModule } from '../../../http/types.ts';
import { BatchAccepted, BatchHeader, MAX_BATCH_LINES, PayoutInput } from '../schemas.ts';
import { submitBatch } from '../service.ts';

const Body = Type.Object({
  header: BatchHeader,
  transactions: Type.Array(PayoutInput, { minItems: 1, maxItems: MAX_BATCH_LINES, description: `1–${MAX_BATCH_LINES} payouts.` }),
});

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/addJson', {
    config: { idempotent: true },
    bodyLimit: deps.config.batchBodyLimitBytes,
    schema: {
      tags: ['Disbursements'],
      summary: 'Add a batch of payouts (JSON)',
      description:
        'Accepts up to 50,000 payouts and answers at once with the batch number and status Q; validation runs in the background (batch.received / batch.failed). Send X-Idempotency-Key to make retries safe.',
      body: Body,
      response: { 200: BatchAccepted },
    },
    handler: async (request, reply) => {
      const { header, transactions } = request.body;
      const body = await withTransaction(deps.db, async (tx) => {
        const accepted = await submitBatch(deps, tx, { ...header, uploadType: 'JSON', transactions });
        return storeResponse(tx, request, reply, 200, accepted);
      });
      return sendSerialized(reply, body);
    },
  });
};
export default route;
