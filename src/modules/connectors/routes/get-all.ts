// GET /core/connectors/GetAll — every connector, active or not, with its capabilities.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { connectorDetail, listConnectors } from '../repository.ts';
import { ConnectorSummary } from './get-summary.ts';

export const ConnectorDetail = Type.Composite([
  ConnectorSummary,
  Type.Object({ channelName: Type.String(), isDisbursementAllowed: Type.Boolean(), isCollectionAllowed: Type.Boolean() }),
]);

const route: RouteModule = (app, { deps }) => {
  app.get('/core/connectors/GetAll', {
    schema: { tags: ['Connectors'], summary: 'List all connectors', response: { 200: Type.Array(ConnectorDetail) } },
    handler: async () => (await listConnectors(deps.db)).map(connectorDetail),
  });
};
export default route;
