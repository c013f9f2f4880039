import { Type } from '@sinclair/typebox';
import { EXAMPLE } from '../../http/docs.ts';
import { Paging } from '../../http/paging.ts';
import { Email, MerchantAccountNumber, OrganisationId, named, Code } from '../../http/schemas.ts';

export const MerchantAccount = Type.Object({
  organisationId: Type.String(),
  accountName: Type.String(),
  merchantAccountNumber: Type.Integer(),
  paymentAccountNumber: Type.String({ description: 'Account number customers pay into directly (E11 beneficiaryAccountNumber).' }),
  accountBalance: Type.Number({ description: 'collectionBalance + disbursmentBalance.' }),
  collectionBalance: Type.Number(),
  disbursmentBalance: Type.Number({ description: 'Spelled as the gateway spells it.' }),
  currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
  levelNumber: Type.Integer({ description: '1 initiator only, 2 initiator + approver, 3 initiator + reviewer + approver.' }),
  levelName: Type.String(),
  statusCode: Code(['A', 'S', 'B', 'I', 'C'], 'A active, S suspended, B blacklisted (I inactive, C closed).'),
  statusName: Type.String(),
  capturedBy: Type.String(),
  dateCreated: Type.String({ format: 'date-time' }),
});

/** One status an account was given (docs.onekhusa.com, Get Status Changes), newest first. */
export const StatusChange = Type.Object({
  capturedBy: Type.String({ description: 'Who made the change.' }),
  statusCode: Code(['A', 'S', 'B', 'I', 'C'], 'A active, S suspended, B blacklisted (I inactive, C closed).'),
  statusName: Type.String({ examples: ['Active', 'Suspended', 'Blacklisted'] }),
  previousStatusCode: Type.Union([Type.String(), Type.Null()], { description: 'Null for the status the account was created with.' }),
  dateCreated: Type.String({ format: 'date-time' }),
  comments: Type.String(),
  reasonId: Type.Integer(),
  reasonDescription: Type.String({ examples: ['Compliance Review Complete'] }),
});

export const StatusChangeQuery = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
});

/** The body of activate, suspend and blacklist, as documented. */
export const StatusChangeBody = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  changedBy: Email(),
  reasonId: Type.Integer({ minimum: 1, maximum: 32767, description: 'The reason category (1 Compliance Review Complete, 2 Pending Documentation, 3 Fraudulent Activity, 4 New Merchant Activation, 5 Requested By The Merchant, 6 Regulatory Directive, 7 Dormant Account, 8 Other).', examples: [1] }),
  comments: Type.Optional(Type.String({ maxLength: 500, description: 'Free text kept with the change.' })),
}, { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, changedBy: EXAMPLE.actor, reasonId: 1, comments: 'Compliance review complete' }] });

/** The body of getAll (docs.onekhusa.com, Get Merchants). */
export const MerchantListBody = Type.Object({
  organisationId: OrganisationId,
  ...Paging,
  searchBy: Type.Optional(Type.Literal('AccountName', { description: 'The one field searched.' })),
  searchText: Type.Optional(Type.String({ maxLength: 200, description: 'Contained in the account name, any case; "" searches nothing.' })),
});

// Their names in the OpenAPI document's components.schemas.
named({ MerchantAccount, StatusChange });
