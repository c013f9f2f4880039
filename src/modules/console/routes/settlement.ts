// Settlement accounts (issue 19).
import type { RouteModule } from '../../../http/types.ts';

const route: RouteModule = () => {};
export default route;
