// POST /disbursements/batch/getTransaction — one batch line by its transaction reference number.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { findPayoutDetail } from '../repository.ts';
import { PayoutDetail, PayoutReference } from '../schemas.ts';
import { payoutDetail } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/batch/getTransaction', {
    schema: {
      tags: ['Disbursements'],
      summary: 'Get a batch transaction',
      description:
        'One payout line of a batch, by its transactionReferenceNumber: its status (transactionStatusCode), fee, and the ' +
        "connector's responseCode and responseMessage. An unknown or another merchant's reference answers 404 E903.",
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, transactionReferenceNumber: PayoutReference }),
      response: { 200: { ...PayoutDetail, description: 'The batch transaction.' } },
    },
    handler: async (request) => {
      const { merchantAccountNumber, transactionReferenceNumber } = request.body;
      const payout = await findPayoutDetail(deps.db, merchantAccountNumber, transactionReferenceNumber, { single: false });
      if (!payout) throw new AppError('notFound', 'detail.payoutNotFound', { reference: transactionReferenceNumber });
      return payoutDetail(request.lang, payout);
    },
  });
};
export default route;
