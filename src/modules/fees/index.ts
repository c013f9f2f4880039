// The fees module: the fee schedule payouts and collections are charged by (schedule.ts). No
// routes or jobs of its own: the modules that move money call it.
import type { ModuleDefinition } from '../../module.ts';

export const feesModule: ModuleDefinition = {
  name: 'fees',
};
