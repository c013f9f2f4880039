// GET /core/connectors/get?connectorId= — one connector.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../http/errors.ts';
import { ConnectorId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { connectorDetail, findConnector } from '../repository.ts';
import { ConnectorDetail } from './get-all.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/core/connectors/get', {
    schema: { tags: ['Connectors'], summary: 'Get a connector', querystring: Type.Object({ connectorId: ConnectorId }), response: { 200: ConnectorDetail } },
    handler: async (request) => {
      const connector = await findConnector(deps.db, request.query.connectorId);
      if (!connector) throw new AppError('notFound', 'detail.connectorNotFound', { connectorId: request.query.connectorId });
      return connectorDetail(connector);
    },
  });
};
export default route;
