// E10 GET /merchants/limits/getAll — the merchant's per-transaction and daily limits.
import { Type } from '@sinclair/typebox';
import { MerchantQuery, Code } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { limitView } from '../repository.ts';

const Limit = Type.Object({
  currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
  transactionCode: Code(['MMW', 'MBA', 'BAM', 'RTP'], 'MMW payout to a wallet, MBA payout to a bank account, BAM payment into the payment account, RTP request to pay.'),
  transactionDescription: Type.String(),
  transactionMinimumAmount: Type.Number(),
  transactionMaximumAmount: Type.Number(),
  dailyLimit: Type.Number(),
});

const route: RouteModule = (app, { limits }) => {
  app.get('/merchants/limits/getAll', {
    schema: {
      tags: ['Limits'],
      summary: 'Transaction limits (E10)',
      description:
        "The merchant's limits per transaction type and currency: minimum and maximum amount per transaction and the daily total " +
        '(MMW merchant to mobile wallet, MBA merchant to bank account, BAM account to merchant, RTP request to pay). A payment beyond a ' +
        'limit is refused with 402 E912 (or 402 E914 for an amount out of range).',
      querystring: MerchantQuery,
      response: { 200: Type.Array(Limit, { description: 'One limit per transaction type and currency.' }) },
    },
    handler: async (request) => (await limits.get(request.query.merchantAccountNumber)).map(limitView),
  });
};
export default route;
