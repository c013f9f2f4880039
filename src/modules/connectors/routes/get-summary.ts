// E9 GET /core/Connectors/GetSummary — the active connectors (banks and wallets), one per institution.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteModule } from '../../../http/types.ts';
import { ConnectorSummary } from '../schemas.ts';
import { connectorSummary, listConnectors } from '../repository.ts';

const route: RouteModule = (app, { deps }) => {
  const schema = {
    tags: ['Connectors'],
    summary: 'Connector summary (E9)',
    description:
      'The active connectors, one per institution: the ids the documentation examples use (550044, 666473, 769356, 769375) are ' +
      'aliases of these and are listed by GET /core/connectors/GetAll; every one of them is accepted wherever a connectorId is.',
    response: { 200: Type.Array(ConnectorSummary, { description: 'The active connectors: banks (channelCode B) and mobile wallets (M).' }) },
  };
  const handler = async (request: FastifyRequest) => (await listConnectors(deps.db, { activeInstitutionsOnly: true })).map((c) => connectorSummary(request.lang, c));
  app.get('/core/Connectors/GetSummary', { schema, handler });
  // The gateway's request example has an extra /api segment; answer there too.
  app.get('/api/core/Connectors/GetSummary', { schema: { ...schema, hide: true }, handler });
};
export default route;
