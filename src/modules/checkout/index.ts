// The checkout module: hosted checkout (initiate through the API, the page customers open).
import type { ModuleDefinition } from '../../module.ts';
import checkoutInitiate from './routes/initiate.ts';
import checkoutPage from './routes/page.ts';

export const checkoutModule: ModuleDefinition = {
  name: 'checkout',
  routes: [checkoutInitiate],
  rootRoutes: [checkoutPage],
};
