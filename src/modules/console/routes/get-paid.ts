// Getting paid (issue 19): requests to pay with their timed accounts, hosted checkout links.
import type { RouteModule } from '../../../http/types.ts';

const route: RouteModule = () => {};
export default route;
