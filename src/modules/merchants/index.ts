// The merchants module: the merchant's accounts and balances, top-ups (sandbox only) and status history.
import type { ModuleDefinition } from '../../module.ts';
import getAccount from './routes/get-account.ts';
import merchantGetAll from './routes/get-all.ts';
import merchantStatusChanges from './routes/get-status-changes.ts';
import topup from './routes/topup.ts';

export const merchantsModule: ModuleDefinition = {
  name: 'merchants',
  routes: [getAccount, topup, merchantGetAll, merchantStatusChanges],
  // Money made up: operators fund merchants through POST /admin/v1/merchants/{n}/fundings instead.
  sandboxOnlyRoutes: [topup],
};
