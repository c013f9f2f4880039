// GET /core/connectors/get?connectorId= — one connector (any id of the catalogue, aliases included).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { ConnectorId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { connectorDetail, findConnector } from '../repository.ts';
import { ConnectorDetail } from '../schemas.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/core/connectors/get', {
    schema: {
      tags: ['Connectors'],
      summary: 'Get a connector',
      description: 'One connector by id, with description, switch merchant id and logo; 404 E903 for an unknown id.',
      querystring: Type.Object({ connectorId: ConnectorId }),
      response: { 200: { ...ConnectorDetail, description: 'The connector.' } },
    },
    handler: async (request) => {
      const connector = await findConnector(deps.db, request.query.connectorId);
      if (!connector) throw new AppError('notFound', 'detail.connectorNotFound', { connectorId: request.query.connectorId });
      return connectorDetail(request.lang, connector);
    },
  });
};
export default route;
