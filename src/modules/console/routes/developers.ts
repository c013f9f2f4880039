// Developers (issue 19): API keys and webhooks.
import type { RouteModule } from '../../../http/types.ts';

const route: RouteModule = () => {};
export default route;
