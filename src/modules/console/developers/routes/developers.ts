// Developers (issue 19): API keys and webhooks, administrators only (roles.ts: section
// 'developers'). Every action calls the service the API route calls, in the action's transaction
// (actions.tsx runAction), and is audited as api_key.<verb> or webhook.<verb>, never with a secret.
import type { RouteModule } from '../../../../http/types.ts';
import keys from './keys.ts';
import webhooks from './webhooks.ts';

const route: RouteModule = (scope, ctx) => {
  keys(scope, ctx);
  webhooks(scope, ctx);
};
export default route;
