// The admin module: the operator's routes under /admin/v1 (Bearer ADMIN_TOKEN): merchants, their
// funding, account status and levels, key pairs, the e-mail outbox, and the payment rails (health,
// traffic, reconciliation).
import type { ModuleDefinition } from '../../module.ts';
import adminCreateKey from './routes/create-key.ts';
import createMerchant from './routes/create-merchant.ts';
import fundMerchant from './routes/fund-merchant.ts';
import listEmails from './routes/list-emails.ts';
import listFundings from './routes/list-fundings.ts';
import listMerchants from './routes/list-merchants.ts';
import railsHealth from './routes/rails-health.ts';
import railsCollections from './routes/rails-collections.ts';
import railsExceptions from './routes/rails-exceptions.ts';
import railsExceptionsResolve from './routes/rails-exceptions-resolve.ts';
import railsPayouts from './routes/rails-payouts.ts';
import railsReconciliations from './routes/rails-reconciliations.ts';
import adminMerchantActivate from './routes/merchant-accounts-activate.ts';
import adminMerchantAdd from './routes/merchant-accounts-add.ts';
import adminMerchantBlacklist from './routes/merchant-accounts-blacklist.ts';
import adminMerchantGetAll from './routes/merchant-accounts-get-all.ts';
import adminMerchantStatusChanges from './routes/merchant-accounts-status-changes.ts';
import adminMerchantSuspend from './routes/merchant-accounts-suspend.ts';
import adminMerchantUpdate from './routes/merchant-accounts-update.ts';

export const adminModule: ModuleDefinition = {
  name: 'admin',
  rootRoutes: [
    createMerchant,
    listMerchants,
    fundMerchant,
    listFundings,
    listEmails,
    // The documented merchant-account administration (issue 14), the operator's: status changes,
    // creation and level changes are not a merchant token's to make (docs/integrators-guide.md,
    // Connectors and merchant accounts).
    adminMerchantAdd,
    adminMerchantUpdate,
    adminMerchantActivate,
    adminMerchantSuspend,
    adminMerchantBlacklist,
    adminMerchantStatusChanges,
    adminMerchantGetAll,
    // A new key pair for a merchant (`npm run cli -- keys create`): lost credentials are one command away.
    adminCreateKey,
    // The payment rails: their health, payouts in an unknown state, one payout's or collection's
    // traffic, reconciliation runs and their exceptions (src/rails/).
    railsHealth,
    railsPayouts,
    railsCollections,
    railsReconciliations,
    railsExceptions,
    railsExceptionsResolve,
  ],
};
