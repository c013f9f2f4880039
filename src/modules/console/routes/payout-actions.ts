// Payout actions (issue 19): batch and single-payout actions, single payouts created from the console.
import type { RouteModule } from '../../../http/types.ts';

const route: RouteModule = () => {};
export default route;
