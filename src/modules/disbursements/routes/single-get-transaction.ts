// POST /disbursements/single/getTransaction — one single payout by its transaction reference number.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { MerchantAccountNumber } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { findPayoutDetail } from '../repository.ts';
import { PayoutReference, SinglePayoutDetail } from '../schemas.ts';
import { singlePayoutDetail } from '../service.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/disbursements/single/getTransaction', {
    schema: {
      tags: ['Disbursements'],
      summary: 'Get a single payout',
      description:
        'One single payout (from POST /disbursements/single/add), by its transactionReferenceNumber: status, fee, the connector\'s ' +
        "responseCode and responseMessage, and who reviewed or approved it. An unknown or another merchant's reference answers 404 E903.",
      body: Type.Object({ merchantAccountNumber: MerchantAccountNumber, transactionReferenceNumber: PayoutReference }),
      response: { 200: { ...SinglePayoutDetail, description: 'The single payout.' } },
    },
    handler: async (request) => {
      const { merchantAccountNumber, transactionReferenceNumber } = request.body;
      const payout = await findPayoutDetail(deps.db, merchantAccountNumber, transactionReferenceNumber, { single: true });
      if (!payout) throw new AppError('notFound', 'detail.payoutNotFound', { reference: transactionReferenceNumber });
      return singlePayoutDetail(request.lang, payout);
    },
  });
};
export default route;
