import { Type } from '@sinclair/typebox';
import { EXAMPLE } from '../../http/docs.ts';
import { Email, MerchantAccountNumber, NullableDateTime, OrganisationId, named, Code } from '../../http/schemas.ts';

export const ClientKey = Type.String({ minLength: 16, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The API key (clientKey), 16–64 characters.' });

export const ApiKeyRecord = Type.Object({
  clientId: Type.Integer(),
  organisationId: Type.String(),
  merchantAccountNumber: Type.Integer(),
  clientKey: Type.String(),
  clientSecret: Type.Null({ description: 'Always null: secrets are shown only once, when generated.' }),
  capturedBy: Type.String(),
  createdBy: Type.String({ description: 'Same as capturedBy (the gateway\'s sample uses this name).' }),
  statusCode: Code(['A', 'I'], 'A Active, I Inactive.'),
  statusName: Type.String(),
  dateCaptured: Type.String({ format: 'date-time' }),
  dateCreated: Type.String({ format: 'date-time', description: 'Same as dateCaptured.' }),
  expiryDate: NullableDateTime,
  modifiedBy: Type.Union([Type.String(), Type.Null()]),
  dateModified: NullableDateTime,
});

export const KeyAction = (actor: 'changedBy' | 'deletedBy') =>
  Type.Object({
    merchantAccountNumber: MerchantAccountNumber,
    clientKey: ClientKey,
    [actor]: Email(),
  } as { merchantAccountNumber: typeof MerchantAccountNumber; clientKey: typeof ClientKey } & Record<typeof actor, ReturnType<typeof Email>>, {
    examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, clientKey: 'Q7RZ2KX9M4TB8WNC3HFD6JPL0SYVAE', [actor]: EXAMPLE.actor }],
  });

export { OrganisationId };

// Their names in the OpenAPI document's components.schemas.
named({ ApiKeyRecord });
