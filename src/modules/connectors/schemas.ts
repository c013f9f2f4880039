// The shapes of E9's connector answers, shared by its routes (GetSummary, GetAll, Get): route files are leaves.
import { Type } from '@sinclair/typebox';
import { Code, named } from '../../http/schemas.ts';

export const ConnectorSummary = Type.Object({
  connectorName: Type.String(),
  connectorId: Type.Integer(),
  isActive: Type.Boolean(),
  channelCode: Code(['B', 'M'], 'B bank, M mobile wallet.'),
  connectorCode: Type.String(),
  connectorDescription: Type.String({ description: 'What the connector processes, in the Accept-Language language.', examples: ['The bank supports the processing of disbursement and collection transactions'] }),
  switchMerchantId: Type.String({ description: "The gateway's merchant id at the national switch for this connector (sandbox values)." }),
  logoBase64: Type.String({ description: 'The logo, base64-encoded (a PNG).' }),
  logoFormat: Type.String({ description: 'Media type of logoBase64.', examples: ['image/png'] }),
});

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

// Their names in the OpenAPI document's components.schemas.
named({ ConnectorSummary });
