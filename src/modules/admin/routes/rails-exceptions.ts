// GET /admin/v1/rails/exceptions — the differences reconciliation found between our ledger and a
// rail's record (src/rails/reconciliation/), oldest first, a page at a time: the open ones
// (?open=true) are an operator's work list; resolved ones keep who resolved them, when, why and
// the correcting ledger transfer. `npm run cli -- rails exceptions` prints the open ones.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { listExceptions } from '../../../rails/reconciliation/exceptions.ts';
import { RailException } from '../schemas.ts';

const PAGE_MAX = 1000;

const route: RouteModule = (app, { deps }) => {
  app.get('/admin/v1/rails/exceptions', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "Differences between our ledger and a rail's record",
      description: 'Reconciliation exceptions, oldest first. open=true: the ones still to resolve; open=false: the resolved ones; absent: both.',
      security: [{ adminToken: [] }],
      querystring: Type.Object({
        open: Type.Optional(Type.Boolean()),
        limit: Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 100 }),
        afterExceptionId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Return exceptions after this id (the last one of the previous page).' })),
      }),
      response: { 200: Type.Array(RailException, { description: 'The page of exceptions, oldest first.' }) },
    },
    handler: async (request) => listExceptions(deps.db, { open: request.query.open, limit: request.query.limit, afterId: request.query.afterExceptionId }),
  });
};

export default route;
