// Team (issue 19): the merchant's users and the audit log.
import type { RouteModule } from '../../../http/types.ts';

const route: RouteModule = () => {};
export default route;
