// Sandbox tools (issue 19; sandbox mode only).
import type { RouteModule } from '../../../http/types.ts';

const route: RouteModule = () => {};
export default route;
