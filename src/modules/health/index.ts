// The health module: liveness and readiness for load balancers and orchestrators.
import type { ModuleDefinition } from '../../module.ts';
import health from './routes/health.ts';

export const healthModule: ModuleDefinition = {
  name: 'health',
  rootRoutes: [health],
};
