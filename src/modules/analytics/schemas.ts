import { Type } from '@sinclair/typebox';
import { EXAMPLE } from '../../http/docs.ts';
import { DateOrDateTime, MerchantAccountNumber, named, Code } from '../../http/schemas.ts';

/** fromDate / toDate: the documentation sends date-times ("2024-01-01T00:00:00Z") and dates ("2024-01-01"); both are one UTC day. */
export const AnalyticsDate = (description: string) => DateOrDateTime(description, ['2024-01-01', '2024-01-01T00:00:00Z']);

export const AnalyticsBody = Type.Object({
  merchantAccountNumber: MerchantAccountNumber,
  summaryType: Type.Optional(Type.Union([Type.Literal('D'), Type.Literal('C')], { description: 'D disbursements, C collections; absent: both.' })),
  fromDate: Type.Optional(AnalyticsDate('First day (UTC), inclusive: a date, or a date-time taken as its UTC date ("2024-01-01T00:00:00Z"). Default: 29 days before toDate.')),
  toDate: Type.Optional(AnalyticsDate('Last day (UTC), inclusive: a date, or a date-time taken as its UTC date ("2024-01-31T23:59:59Z"). Default: today. At most 366 days in all.')),
}, { examples: [{ merchantAccountNumber: EXAMPLE.merchantAccountNumber, summaryType: 'D', fromDate: '2025-09-01', toDate: '2025-09-30' }] });

export const ConnectorMetric = Type.Object({
  summaryType: Type.String(),
  connectorName: Type.String(),
  currencyCode: Code(['MWK'], 'MWK: the one currency served.'),
  successfulTransactions: Type.Number(),
  failedTransactions: Type.Number(),
  totalTransactions: Type.Number({ description: 'Successful, failed and reversed.' }),
});

// Their names in the OpenAPI document's components.schemas.
named({ ConnectorMetric });
