// POST /admin/v1/rails/exceptions/{exceptionId}/resolve — an operator resolves a reconciliation
// exception with a reason: 'correct' books one correcting ledger transfer (type rail_correction,
// reference RX<exceptionId>; never an edit of what was booked) in the same transaction as the
// resolution; 'accept' records the reason only (the rail's record was wrong). Who, when, why and
// which transfer are kept on the exception; ledger verify checks the corrections. A resolved
// exception is not resolved again (409). `npm run cli -- rails resolve` does the same.
import { Type } from '@sinclair/typebox';
import { Email } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { resolveException } from '../../../rails/reconciliation/exceptions.ts';
import { RailException } from '../schemas.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/rails/exceptions/:exceptionId/resolve', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'Resolve a reconciliation exception',
      description:
        "correct: book the correcting ledger transfer (docs/operations.md, Reconciliation, lists what each kind moves; 402 when the kind has nothing to correct or the merchant's balance cannot cover it); " +
        "accept: keep our record, the rail's was wrong. 404 for an unknown exception, 409 for one already resolved.",
      security: [{ adminToken: [] }],
      params: Type.Object({ exceptionId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
      body: Type.Object({
        action: Type.Union([Type.Literal('correct'), Type.Literal('accept')]),
        reason: Type.String({ minLength: 3, maxLength: 500, pattern: '\\S', description: 'Why: kept with the resolution (and the correcting transfer).', examples: ['Switch settlement report of 2025-09-18 shows the transfer aborted'] }),
        resolvedBy: Type.Optional({ ...Email(), description: "Who resolves it (default 'admin': the operator token)." }),
      }),
      response: { 200: { ...RailException, description: 'The exception, resolved.' } },
    },
    handler: async (request) =>
      resolveException(deps, {
        exceptionId: request.params.exceptionId,
        action: request.body.action,
        reason: request.body.reason.trim(),
        resolvedBy: request.body.resolvedBy ?? 'admin',
      }),
  });
};

export default route;
