// GET /admin/v1/rails/collections/{transactionReferenceNumber} — for support: the inbound
// transfer that paid a collection over a rail (the payer's DFSP, the ids, the phase) and every
// FSPIOP message of it, sent and received, oldest first; a transfer never credited (an exception
// names it by its transfer id) is found by that id instead. Only routing headers are shown (no
// signature or key is ever stored), and our fulfilment is left out of the bodies until the
// transfer is committed. `npm run cli -- rails traffic --collection R` prints the same.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import type { RouteModule } from '../../../http/types.ts';
import { collectionTraffic } from '../../../rails/operator.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/rails/collections/:transactionReferenceNumber', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "One collection's way over its rail",
      description: "The inbound transfer's rail record (ids, phase, the payer's DFSP) and every message sent and received, oldest first. 404 for a collection no rail carried.",
      security: [{ adminToken: [] }],
      params: Type.Object({
        transactionReferenceNumber: Type.String({
          pattern: '^([A-Z0-9]{12}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
          description: "The collection's transactionReferenceNumber, or the inbound transfer's id (one never credited).",
        }),
      }),
      response: { 200: Type.Object({}, { additionalProperties: true, description: 'The rail record and its messages.' }) },
    },
    handler: async (request) => {
      const traffic = await collectionTraffic(deps.db, request.params.transactionReferenceNumber);
      if (!traffic) throw new AppError('notFound', 'detail.collectionNotFound', { transactionReferenceNumber: request.params.transactionReferenceNumber });
      return traffic;
    },
  });
};

export default route;
