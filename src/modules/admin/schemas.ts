import { Type } from '@sinclair/typebox';
import { named } from '../../http/schemas.ts';

export const Funding = Type.Object({
  fundingId: Type.Integer(),
  merchantAccountNumber: Type.Integer(),
  currencyCode: Type.String(),
  amount: Type.Number(),
  bankReference: Type.String({ description: 'Upper-cased as stored.' }),
  receivedOn: Type.String({ format: 'date' }),
  recordedBy: Type.String(),
  transactionReferenceNumber: Type.String({ description: 'The ledger transfer that credited the disbursement balance.' }),
  dateRecorded: Type.String({ format: 'date-time' }),
});

const NullableDateTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const NullableMinor = Type.Union([Type.Integer(), Type.Null()]);

/** A reconciliation run (src/rails/reconciliation/runs.ts). */
export const ReconciliationRun = Type.Object({
  runId: Type.Integer(),
  rail: Type.String(),
  day: Type.String({ format: 'date', description: 'The UTC day reconciled.' }),
  requestedBy: Type.String({ description: "'schedule' (the daily job) or the operator who asked." }),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('finished'), Type.Literal('failed')]),
  createdAt: Type.String({ format: 'date-time' }),
  startedAt: NullableDateTime,
  finishedAt: NullableDateTime,
  transfersChecked: Type.Integer({ description: "Transfers compared with the rail's record." }),
  unanswered: Type.Integer({ description: 'Of those, the ones the rail gave no answer for.' }),
  differences: Type.Integer({ description: 'Differences found (each an exception, open or already resolved).' }),
  newExceptions: Type.Integer({ description: 'Exceptions this run opened.' }),
  cleared: Type.Integer({ description: 'Open exceptions this run found gone (resolved as cleared).' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why a failed run failed.' }),
});

/** A difference between our record of a transfer and the rail's (src/rails/reconciliation/exceptions.ts). */
export const RailException = Type.Object({
  exceptionId: Type.Integer(),
  merchantAccountNumber: Type.Integer(),
  rail: Type.String(),
  transferId: Type.String({ description: "The transfer's id on the rail." }),
  kind: Type.Union(
    ['ours_committed_theirs_not', 'theirs_committed_ours_not', 'amount_differs', 'in_flight_past_expiry', 'theirs_unknown'].map((k) => Type.Literal(k)),
    { description: 'docs/operations.md, Reconciliation, says what each means and how it is resolved.' },
  ),
  subject: Type.Union([Type.Literal('payout'), Type.Literal('collection')]),
  reference: Type.Union([Type.String(), Type.Null()], { description: "The payout's or collection's transactionReferenceNumber; null for a collection never credited." }),
  currencyCode: Type.String(),
  oursPhase: Type.String({ description: 'Our rail record\'s phase when last seen (payout: transfer, committed, aborted; collection: reserved, committed, aborted).' }),
  theirsState: Type.Union([Type.String(), Type.Null()], { description: "The rail's state of the transfer (COMMITTED, ABORTED, RESERVED, RECEIVED, NOT_FOUND, ERROR); null: no answer." }),
  theirsErrorCode: Type.Union([Type.String(), Type.Null()]),
  oursAmountMinor: { ...NullableMinor, description: "Our ledger's amount for the transfer, in minor units." },
  theirsAmountMinor: { ...NullableMinor, description: 'The amount the transfer carried on the rail, in minor units (null: not known).' },
  feeMinor: Type.Integer({ description: 'The fee our ledger booked with it, in minor units.' }),
  expiresAt: NullableDateTime,
  day: Type.String({ format: 'date', description: 'The day of the run that found it first.' }),
  firstRunId: Type.Integer(),
  lastRunId: Type.Integer(),
  detectedAt: Type.String({ format: 'date-time' }),
  lastSeenAt: Type.String({ format: 'date-time' }),
  resolution: Type.Union([Type.Literal('correct'), Type.Literal('accept'), Type.Literal('cleared'), Type.Null()], { description: 'null while open.' }),
  resolvedAt: NullableDateTime,
  resolvedBy: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  ledgerTransferId: Type.Union([Type.Integer(), Type.Null()], { description: 'The rail_correction ledger transfer of a correction.' }),
});

/** A new merchant and its first key pair, as POST /admin/v1/merchants (and merchant-accounts/add) answers. */
export const Credentials = Type.Object({
  organisationId: Type.String(),
  merchantAccountNumber: Type.Integer(),
  paymentAccountNumber: Type.String(),
  accountName: Type.String(),
  levelNumber: Type.Integer(),
  currencyCode: Type.String(),
  clientId: Type.Integer(),
  apiKey: Type.String(),
  apiSecret: Type.String({ description: 'Shown once; only its hash is stored.' }),
});

// Their names in the OpenAPI document's components.schemas.
named({ Funding, ReconciliationRun, RailException, Credentials });
