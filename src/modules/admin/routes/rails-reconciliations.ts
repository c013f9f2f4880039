// POST /admin/v1/rails/reconciliations and GET /admin/v1/rails/reconciliations/{runId} — an
// operator asks for a day of a rail to be reconciled (besides the daily job, which does
// yesterday): the run is queued with its job and answered at once (202); the worker asks the rail
// about every transfer of the day and records each difference as an exception
// (src/rails/reconciliation/). The run shows its progress and its counts. `npm run cli -- rails
// reconcile --day D` asks and waits for it.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { Email } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { getRun, requestReconciliation } from '../../../rails/reconciliation/runs.ts';
import { ReconciliationRun } from '../schemas.ts';

const route: RouteModule = (app, { deps }) => {
  app.post('/admin/v1/rails/reconciliations', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: "Reconcile a day of a rail with the rail's own record",
      description:
        'Queues a run that compares every transfer our ledger says went over the rail that UTC day with the rail\'s record of it ' +
        '(Mojaloop: GET /transfers/{id}) and lists each difference as an exception (GET /admin/v1/rails/exceptions). Running a day again ' +
        'opens no exception twice. The daily job reconciles yesterday by itself.',
      security: [{ adminToken: [] }],
      body: Type.Object({
        day: Type.String({ format: 'date', description: 'The UTC day (YYYY-MM-DD), today at the latest.', examples: ['2025-09-18'] }),
        rail: Type.String({ default: 'mojaloop', minLength: 1, maxLength: 20, description: 'A configured rail that keeps a record of its own (mojaloop); 404 for any other.' }),
        requestedBy: Type.Optional(Email()),
      }),
      response: { 202: { ...ReconciliationRun, description: 'The run, queued.' } },
    },
    handler: async (request, reply) => {
      const run = await requestReconciliation(deps, { rail: request.body.rail, day: request.body.day, requestedBy: request.body.requestedBy ?? 'admin' });
      return reply.code(202).send(run);
    },
  });

  app.get('/admin/v1/rails/reconciliations/:runId', {
    config: { auth: 'admin' },
    schema: {
      tags: ['Operator'],
      summary: 'One reconciliation run',
      description: 'Its status (queued, running, finished, failed) and its counts: transfers checked, unanswered, differences, exceptions opened and cleared.',
      security: [{ adminToken: [] }],
      params: Type.Object({ runId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
      response: { 200: { ...ReconciliationRun, description: 'The run.' } },
    },
    handler: async (request) => {
      const run = await getRun(deps, request.params.runId);
      if (!run) throw new AppError('notFound', 'detail.reconciliationNotFound', { runId: request.params.runId });
      return run;
    },
  });
};

export default route;
