// GET /console/assets/:name — the stylesheet and htmx (assets.ts): no session, no cookies.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { answerAsset, ASSETS } from '../assets.ts';
import { ASSETS_PATH } from '../paths.ts';
import { at } from '../at.ts';
import { Query, Text } from '../schemas.ts';

const AssetParams = Type.Object({ name: Type.String() });
/** The content hash the page linked (assets.ts): an address with it never changes content. */
const AssetQuery = Query({ v: Text() });

const route: RouteModule = (scope) => {
  scope.get(`${at(ASSETS_PATH)}/:name`, { schema: { params: AssetParams, querystring: AssetQuery }, config: { consoleAccess: 'asset' } }, async (request, reply) => {
    const asset = ASSETS.get(request.params.name);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    const ifNoneMatch = request.headers['if-none-match'];
    const answer = answerAsset(asset, request.query.v, typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined);
    reply.code(answer.status).headers(answer.headers);
    return answer.body === undefined ? reply.send() : reply.send(answer.body);
  });
};
export default route;
