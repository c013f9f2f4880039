// The analytics module: the merchant's transaction metrics per connector and for disbursements.
import type { ModuleDefinition } from '../../module.ts';
import analyticsCount from './routes/count-metrics.ts';
import analyticsDisbursements from './routes/disbursement-metrics.ts';
import analyticsSum from './routes/sum-metrics.ts';

export const analyticsModule: ModuleDefinition = {
  name: 'analytics',
  routes: [analyticsCount, analyticsSum, analyticsDisbursements],
};
