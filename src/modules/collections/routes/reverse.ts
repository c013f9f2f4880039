// POST /collections/reverse — sandbox helper: reverses a collection in the ledger (refused when
// the collection balance cannot cover it) and emits payment.reversed / payrequest.reversed.
import { Type } from '@sinclair/typebox';
import { withTransaction } from '../../../db/pool.ts';
import { sendSerialized, storeResponse } from '../../../http/idempotency.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import { EXAMPLE } from '../../../http/docs.ts';
import type { RouteModule } from '../../../http/types.ts';
import { CollectionResult, TransactionReference } from '../schemas.ts';
import { collectionView, reverse } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/collections/reverse', {
    config: { idempotent: true },
    schema: {
      tags: ['Collections'],
      summary: 'Reverse a collection (sandbox)',
      description:
        'Sandbox helper: reverses a collection in the ledger, as a customer\'s bank would, and sends `payment.reversed` (direct ' +
        'payments) or `payrequest.reversed` (requests to pay). Refused with 402 E911 when the collection balance cannot cover it, and ' +
        '402 E924 when it is already reversed. Absent in production mode. Send X-Idempotency-Key to make retries safe.',
      body: Type.Object(
        { merchantAccountNumber: MerchantAccountNumber, transactionReferenceNumber: TransactionReference, reason: Type.String({ minLength: 1, maxLength: 200 }) },
        { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, transactionReferenceNumber: '251220XF152G', reason: 'Customer disputed the payment' }] },
      ),
      response: { 200: { ...CollectionResult, description: 'The collection, now reversed (transactionStatusCode R).' } },
    },
    handler: async (request, reply) => {
      const body = await withTransaction(deps.db, async (tx) => {
        const reversed = await reverse(tx, { ...request.body, transactionReferenceNumber: request.body.transactionReferenceNumber.toUpperCase() });
        return storeResponse(tx, request, reply, 200, collectionView(request.lang, reversed));
      });
      return sendSerialized(reply, body);
    },
  });
};
export default route;
