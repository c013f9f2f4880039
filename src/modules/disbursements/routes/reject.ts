// POST /disbursements/batch/reject — P or R → X, with a reason. Idempotent.
import { Type } from '@sinclair/typebox';
import { actionRoute } from '../action-route.ts';

export default actionRoute({
  method: 'POST',
  url: '/disbursements/batch/reject',
  action: 'reject',
  summary: 'Reject a batch',
  description: 'From P or R, to X; every valid line becomes X.',
  actorField: 'rejectedBy',
  extra: { reasonForRejection: Type.String({ minLength: 1, maxLength: 500, description: 'Why it is rejected.', examples: ['Wrong amounts on two lines'] }) },
  reason: (body) => body.reasonForRejection as string,
});
