// GET /core/connectors/GetAll — every connector, active or not, aliases included, with its capabilities.
import { Type } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';
import { connectorDetail, listConnectors } from '../repository.ts';
import { ConnectorSummary } from './get-summary.ts';

export const ConnectorDetail = Type.Composite([
  ConnectorSummary,
  Type.Object({
    channelName: Type.String({ examples: ['Bank', 'Mobile Network Operator'] }),
    isDisbursementAllowed: Type.Boolean(),
    isCollectionAllowed: Type.Boolean(),
    aliasOf: Type.Union([Type.Integer(), Type.Null()], {
      description: "For an id the gateway's documentation uses in its examples (550044, 666473, 769356, 769375): the institution's connector id, whose line it joins in analytics. Null otherwise.",
    }),
  }),
]);

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
