// POST /disbursements/batch/getBatch — one batch, the full record with counts and totals.
import { AppError } from '../../../http/errors.ts';
import type { RouteModule } from '../../../http/types.ts';
import { findBatch } from '../repository.ts';
import { BatchActionBody, BatchRecord } from '../schemas.ts';
import { batchRecord } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/getBatch', {
    schema: {
      tags: ['Disbursements'],
      summary: 'Get a batch',
      description:
        'One batch of the merchant, the full record with its counts and totals and who reviewed, approved or rejected it. Shows ' +
        "queued (Q) batches too, so a client can poll until validation is done. With the documented contentType, dataSource, " +
        'authorisationLevel, errorFileName, actionedBy and dateActioned. An unknown or another merchant\'s batch answers 404 E903.',
      body: BatchActionBody,
      response: { 200: { ...BatchRecord, description: 'The batch.' } },
    },
    handler: async (request) => {
      const batch = await findBatch(deps.db, request.body.merchantAccountNumber, request.body.batchNumber);
      if (!batch) throw new AppError('notFound', 'detail.batchNotFound', { batchNumber: request.body.batchNumber });
      return batchRecord(request.lang, batch);
    },
  });
};
export default route;
