// GET /admin/v1/rails/payouts/unknown and GET /admin/v1/rails/payouts/{transactionReferenceNumber}
// — for support: the payouts a rail has not answered for past their expiry (the service keeps
// asking the switch; an operator may want to call its operator), and one payout's way over its
// rail with every FSPIOP message sent and received (routing headers only: no signature or key is
// ever stored). `npm run cli -- rails unknown` and `rails traffic --reference R` print the same.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import type { RouteModule } from '../../../http/types.ts';
import { payoutTraffic, unknownPayouts } from '../../../rails/operator.ts';

const Reference = Type.String({ pattern: '^[A-Z0-9]{12}$', description: "The payout's transactionReferenceNumber." });

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/rails/payouts/unknown', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'Payouts whose outcome a rail has not given past their expiry',
      description: 'Sent over a rail, unanswered past the transfer expiry, oldest first. The service asks the switch about each until it answers; none is failed or sent again without its word.',
      security: [{ adminToken: [] }],
      querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) }),
      response: {
        200: Type.Array(
          Type.Object({
            transactionReferenceNumber: Type.String(),
            merchantAccountNumber: Type.Integer(),
            rail: Type.String(),
            transferId: Type.String(),
            amountMinor: Type.Integer(),
            expiresAt: Type.String({ format: 'date-time' }),
            askedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
            secondsPastExpiry: Type.Integer(),
          }),
          { description: 'The payouts in an unknown state.' },
        ),
      },
    },
    handler: async (request) => unknownPayouts(deps.db, request.query.limit),
  });

  app.get('/admin/v1/rails/payouts/:transactionReferenceNumber', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "One payout's way over its rail",
      description: "The payout's rail record (ids, phase, the beneficiary's DFSP and the name it holds) and every message sent and received, oldest first. 404 for a payout no rail carried.",
      security: [{ adminToken: [] }],
      params: Type.Object({ transactionReferenceNumber: Reference }),
      response: { 200: Type.Object({}, { additionalProperties: true, description: 'The rail record and its messages.' }) },
    },
    handler: async (request) => {
      const traffic = await payoutTraffic(deps.db, request.params.transactionReferenceNumber);
      if (!traffic) throw new AppError('notFound', 'detail.payoutNotFound', { reference: request.params.transactionReferenceNumber });
      return traffic;
    },
  });
};

export default route;
