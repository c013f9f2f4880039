// POST /collections/getTransactions — the merchant's collections, newest first, paged, as the
// gateway lists them: flat items (docs.onekhusa.com, Get Payments), where getTransaction answers
// the nested E11 shape.
import { Type, type Static } from '@sinclair/typebox';
import { pageWindow, Paging } from '../../../http/paging.ts';
import { MerchantAccountNumber, Code, named } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { CollectionResult } from '../schemas.ts';
import { getTransactions } from '../service.ts';

const Body = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  transactionDate: Type.Optional(Type.String({ format: 'date', description: 'Only this day (UTC), YYYY-MM-DD.' })),
  searchBy: Type.Optional(
    Type.Union([
      Type.Literal('TransactionReferenceNumber'),
      Type.Literal('SourceReferenceNumber'),
      Type.Literal('SourceAccountNumber'),
      Type.Literal('CustomerName'),
      Type.Literal('ReferenceNumber'),
    ]),
  ),
  searchText: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive text contained in the searchBy field; "" searches nothing (as the docs send it).' })),
  ...Paging,
});

/** One listed collection: the documented fields first, then a few more of the same record. */
export const CollectionListItem = Type.Object({
  sourceCustomerName: Type.String(),
  connectorName: Type.String(),
  transactionAmount: Type.Number({ description: 'What the customer paid (amountSent).' }),
  transactionFee: Type.Number(),
  currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
  transactionStatusCode: Code(['S', 'R'], 'S successful, R reversed.'),
  transactionStatusName: Type.String(),
  transactionReferenceNumber: Type.String(),
  transactionDate: Type.String({ format: 'date-time' }),
  amountReceived: Type.Number({ description: 'transactionAmount − transactionFee.' }),
  sourceAccountNumber: Type.String(),
  sourceReferenceNumber: Type.String(),
  connectorId: Type.Integer(),
  transactionCode: Code(['BAM', 'RTP'], 'BAM direct payment, RTP request to pay.'),
  transactionDescription: Type.String(),
  metaData: CollectionResult.properties.metaData,
});

type Nested = Static<typeof CollectionResult>;

export function collectionListItem(c: Nested): Static<typeof CollectionListItem> {
  return {
    sourceCustomerName: c.source.customerName,
    connectorName: c.source.connectorName,
    transactionAmount: c.source.amountSent,
    transactionFee: c.transaction.transactionFee,
    currencyCode: c.source.currencyCode,
    transactionStatusCode: c.transaction.transactionStatusCode,
    transactionStatusName: c.transaction.transactionStatusName,
    transactionReferenceNumber: c.transaction.transactionReferenceNumber,
    transactionDate: c.transaction.transactionDate,
    amountReceived: c.beneficiary.amountReceived,
    sourceAccountNumber: c.source.accountNumber,
    sourceReferenceNumber: c.source.sourceReferenceNumber,
    connectorId: c.source.connectorId,
    transactionCode: c.transaction.transactionCode,
    transactionDescription: c.transaction.transactionDescription,
    ...(c.metaData ? { metaData: c.metaData } : {}),
  };
}

const route: RouteModule = (app, { deps }) => {
  app.post('/collections/getTransactions', {
    config: { readOnly: true },
    schema: {
      tags: ['Collections'],
      summary: 'List collections',
      description:
        'Newest first, paged; optionally one UTC day (transactionDate) and a case-insensitive search (searchBy/searchText; "" searches ' +
        'nothing). Flat items, as the gateway lists them; POST /collections/getTransaction answers one in the nested E11 shape.',
      body: Body,
      response: { 200: Type.Array(CollectionListItem, { description: 'The page of collections, newest first.' }) },
    },
    handler: async (request) => {
      const { merchantAccountNumber, pageNumber, numberOfReturnedRows, isIncremental, ...search } = request.body;
      const found = await getTransactions(deps, request.lang, merchantAccountNumber, { ...search, ...pageWindow({ pageNumber, numberOfReturnedRows, isIncremental }) });
      return found.map(collectionListItem);
    },
  });
};
export default route;

// Their names in the OpenAPI document's components.schemas.
named({ CollectionListItem });
