// GET /admin/v1/rails — the operator's view of the payment rails (src/rails/): which connector
// ids go over which rail, and each rail's health: its last success and failure, failures and
// successes in the last hour, payouts in flight (sent, not yet answered) and those overdue (past
// their expiration plus MOJALOOP_IN_FLIGHT_BOUND_SECONDS), which need an operator. `npm run cli
// -- rails health` prints the same.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { payoutRoutes } from '../../../rails/routing.ts';

const RailHealth = Type.Object({
  rail: Type.String({ description: 'simulated (sandbox), unavailable (production: F105), mojaloop' }),
  connectorIds: Type.Union([Type.Array(Type.Integer()), Type.Literal('others')], { description: 'The connector ids it carries, or "others": every one no other rail has.' }),
  lastSuccessAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  lastFailureAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  successesLastHour: Type.Integer(),
  failuresLastHour: Type.Integer(),
  inFlight: Type.Integer({ description: 'Payouts sent over the rail whose outcome has not come yet.' }),
  overdue: Type.Integer({ description: 'Of those, the ones past their expiration plus the bound: an operator should look.' }),
});

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/rails', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'Payment rails and their health',
      description: 'Each rail payouts may take, in routing order (the last takes every connector the others do not), with its health.',
      security: [{ adminToken: [] }],
      response: { 200: Type.Object({ rails: Type.Array(RailHealth) }, { description: 'The rails.' }) },
    },
    handler: async () => ({ rails: await Promise.all(payoutRoutes(deps).map(({ rail, connectors }) => rail.health(deps, connectors))) }),
  });
};

export default route;
