// The merchants module: the merchant's accounts and balances, top-ups (sandbox only) and status history.
import type { ModuleDefinition } from '../../module.ts';
import getAccount from './routes/get-account.ts';
import merchantGetAll from './routes/get-all.ts';
import merchantStatusChanges from './routes/get-status-changes.ts';
import { activateAccount, addAccount, blacklistAccount, suspendAccount, updateAccount } from './routes/operator-only.ts';
import topup from './routes/topup.ts';

export const merchantsModule: ModuleDefinition = {
  name: 'merchants',
  // add, update, activate, suspend and blacklist are the operator's (admin module): at their
  // documented paths they refuse a merchant's token with 403 naming the operator's path.
  routes: [getAccount, topup, merchantGetAll, merchantStatusChanges, addAccount, updateAccount, activateAccount, suspendAccount, blacklistAccount],
  // Money made up: operators fund merchants through POST /admin/v1/merchants/{n}/fundings instead.
  sandboxOnlyRoutes: [topup],
};
