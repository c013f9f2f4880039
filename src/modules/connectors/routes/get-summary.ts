// E9 GET /core/Connectors/GetSummary — the active connectors (banks and wallets).
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { connectorSummary, listConnectors } from '../repository.ts';

export const ConnectorSummary = Type.Object({
  connectorName: Type.String(),
  connectorId: Type.Integer(),
  isActive: Type.Boolean(),
  channelCode: Type.String({ description: 'B bank, M mobile wallet.' }),
  connectorCode: Type.String(),
});

const route: RouteModule = (app, { deps }) => {
  const schema = { tags: ['Connectors'], summary: 'Connector summary (E9)', response: { 200: Type.Array(ConnectorSummary) } };
  const handler = async () => (await listConnectors(deps.db, true)).map(connectorSummary);
  app.get('/core/Connectors/GetSummary', { schema, handler });
  // The gateway's request example has an extra /api segment; answer there too.
  app.get('/api/core/Connectors/GetSummary', { schema: { ...schema, hide: true }, handler });
};
export default route;
