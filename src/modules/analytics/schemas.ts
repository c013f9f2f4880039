import { Type } from '@sinclair/typebox';
import { MerchantAccountNumber } from '../../http/schemas.ts';

export const AnalyticsBody = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  summaryType: Type.Optional(Type.Union([Type.Literal('D'), Type.Literal('C')], { description: 'D disbursements, C collections; absent: both.' })),
  fromDate: Type.Optional(Type.String({ format: 'date', description: 'First day (UTC), inclusive. Default: 29 days before toDate.' })),
  toDate: Type.Optional(Type.String({ format: 'date', description: 'Last day (UTC), inclusive. Default: today. At most 366 days in all.' })),
});

export const ConnectorMetric = Type.Object({
  summaryType: Type.String(),
  connectorName: Type.String(),
  currencyCode: Type.String(),
  successfulTransactions: Type.Number(),
  failedTransactions: Type.Number(),
  totalTransactions: Type.Number({ description: 'Successful, failed and reversed.' }),
});
