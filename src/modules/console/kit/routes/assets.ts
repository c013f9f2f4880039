// GET /console/assets/:name — the stylesheet and htmx (assets.ts): no session, no cookies.
import { formField } from '../../../../http/html.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { answerAsset, ASSETS } from '../assets.ts';
import { ASSETS_PATH } from '../paths.ts';
import { at } from '../at.ts';

const route: RouteModule = (scope) => {
  scope.get(`${at(ASSETS_PATH)}/:name`, { schema: { hide: true }, config: { consoleAccess: 'asset' } }, async (request, reply) => {
    const asset = ASSETS.get(String((request.params as { name: string }).name));
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    const ifNoneMatch = request.headers['if-none-match'];
    const answer = answerAsset(asset, formField(request.query, 'v'), typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined);
    reply.code(answer.status).headers(answer.headers);
    return answer.body === undefined ? reply.send() : reply.send(answer.body);
  });
};
export default route;
