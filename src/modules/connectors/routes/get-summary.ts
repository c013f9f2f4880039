// E9 GET /core/Connectors/GetSummary — the active connectors (banks and wallets), one per institution.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RouteModule } from '../../../http/types.ts';
import { connectorSummary, listConnectors } from '../repository.ts';

export const ConnectorSummary = Type.Object({
  connectorName: Type.String(),
  connectorId: Type.Integer(),
  isActive: Type.Boolean(),
  channelCode: Type.String({ description: 'B bank, M mobile wallet.' }),
  connectorCode: Type.String(),
  connectorDescription: Type.String({ description: 'What the connector processes, in the Accept-Language language.', examples: ['The bank supports the processing of disbursement and collection transactions'] }),
  switchMerchantId: Type.String({ description: "The gateway's merchant id at the national switch for this connector (sandbox values)." }),
  logoBase64: Type.String({ description: 'The logo, base64-encoded (a PNG).' }),
  logoFormat: Type.String({ description: 'Media type of logoBase64.', examples: ['image/png'] }),
});

const route: RouteModule = (app, { deps }) => {
  const schema = {
    tags: ['Connectors'],
    summary: 'Connector summary (E9)',
    description:
      'The active connectors, one per institution: the ids the documentation examples use (550044, 666473, 769356, 769375) are ' +
      'aliases of these and are listed by GET /core/connectors/GetAll; every one of them is accepted wherever a connectorId is.',
    response: { 200: Type.Array(ConnectorSummary, { description: 'The active connectors: banks (channelCode B) and mobile wallets (M).' }) },
  };
  const handler = async (request: FastifyRequest) => (await listConnectors(deps.db, true)).map((c) => connectorSummary(request.lang, c));
  app.get('/core/Connectors/GetSummary', { schema, handler });
  // The gateway's request example has an extra /api segment; answer there too.
  app.get('/api/core/Connectors/GetSummary', { schema: { ...schema, hide: true }, handler });
};
export default route;
