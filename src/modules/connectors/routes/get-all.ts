// GET /core/connectors/GetAll — every connector, active or not, aliases included, with its capabilities.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { ConnectorDetail } from '../schemas.ts';
import { connectorDetail, listConnectors } from '../repository.ts';

const route: RouteModule = (app, { deps }) => {
  app.get('/core/connectors/GetAll', {
    schema: {
      tags: ['Connectors'],
      summary: 'List all connectors',
      description: 'The whole catalogue, inactive connectors and aliases included, with description, switch merchant id and logo.',
      response: { 200: Type.Array(ConnectorDetail, { description: 'Every connector of the catalogue.' }) },
    },
    handler: async (request) => (await listConnectors(deps.db)).map((c) => connectorDetail(request.lang, c)),
  });
};
export default route;
