// The settlement module: the merchant's settlement (bank) accounts.
import type { ModuleDefinition } from '../../module.ts';
import settlementActivate from './routes/activate.ts';
import settlementAdd from './routes/add.ts';
import settlementDeactivate from './routes/deactivate.ts';
import settlementDelete from './routes/delete.ts';
import settlementGetAll from './routes/get-all.ts';
import settlementGet from './routes/get.ts';
import settlementUpdate from './routes/update.ts';

export const settlementModule: ModuleDefinition = {
  name: 'settlement',
  routes: [settlementAdd, settlementGetAll, settlementGet, settlementActivate, settlementDeactivate, settlementUpdate, settlementDelete],
};
