// GET /admin/v1/rails — the operator's view of the payment rails (src/rails/): which connector
// ids go over which rail, and each rail's health, for its payouts and (a rail that carries them)
// its collections: the last success and failure, failures, successes and the error rate in the
// last hour, transfers in flight (not final yet), the age of the oldest, and those overdue (past
// their expiration plus MOJALOOP_IN_FLIGHT_BOUND_SECONDS), which need an operator. `npm run cli
// -- rails health` prints the same.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { payoutRoutes } from '../../../rails/routing.ts';

const DateTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/** One direction's figures (a rail's payouts at the top of its entry, its collections beside them). */
const flow = {
  lastSuccessAt: { ...DateTime, description: 'The last transfer carried to success.' },
  lastFailureAt: { ...DateTime, description: 'The last that failed (any reason).' },
  successesLastHour: Type.Integer(),
  failuresLastHour: Type.Integer(),
  errorRateLastHour: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'failures / (successes + failures) in the last hour; null when none was decided.' }),
  inFlight: Type.Integer({ description: 'Transfers sent (a collection: accepted) whose final word has not come yet.' }),
  overdue: Type.Integer({ description: 'Of those, the ones past their expiration plus the bound: an operator should look.' }),
  oldestInFlightSeconds: Type.Union([Type.Integer(), Type.Null()], { description: 'Age in seconds of the oldest in flight, from when its rail record was made; null when none is.' }),
};

const RailHealth = Type.Object({
  rail: Type.String({ description: 'simulated (sandbox), unavailable (production: F105), mojaloop' }),
  connectorIds: Type.Union([Type.Array(Type.Integer()), Type.Literal('others')], { description: 'The connector ids it carries, or "others": every one no other rail has.' }),
  ...flow,
  collections: Type.Union([Type.Object(flow), Type.Null()], { description: 'Payments into merchants\' accounts over the rail; null for a rail that carries none.' }),
}, { description: 'The top-level figures are its payouts\'.' });

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
