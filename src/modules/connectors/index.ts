// The connectors module: the banks and wallets payouts and collections go through.
import type { ModuleDefinition } from '../../module.ts';
import connectorsAll from './routes/get-all.ts';
import connectorSummary from './routes/get-summary.ts';
import connectorGet from './routes/get.ts';

export const connectorsModule: ModuleDefinition = {
  name: 'connectors',
  routes: [connectorSummary, connectorsAll, connectorGet],
};
