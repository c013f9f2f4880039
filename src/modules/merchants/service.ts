// Merchant accounts: creation by the operator (with ledger accounts, default limits and a first
// key pair, in one transaction), the account view with balances, and sandbox top-ups.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { t, type Lang, type MessageKey } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import { randomDigits, randomUpperAlnum, retryOnCollision } from '../../lib/ids.ts';
import { toMajor } from '../../lib/money.ts';
import { insertApiKey, newKeyPair } from '../api-keys/repository.ts';
import { activeConnector } from '../connectors/repository.ts';
import { merchantAccountId, openMerchantAccounts, postTransfer, systemAccountId } from '../ledger/ledger.ts';
import * as repo from './repository.ts';
import { merchantStatusName } from './status.ts';

/** merchant_status_reasons 4, "New Merchant Activation" (migrations/0010). */
const NEW_MERCHANT_REASON_ID = 4;

export interface CreateMerchantInput {
  accountName: string;
  levelNumber?: number;
  currencyCode?: string;
  organisationId?: string;
  capturedBy?: string;
  isDemo?: boolean;
}

export interface MerchantCredentials {
  organisationId: string;
  merchantAccountNumber: number;
  paymentAccountNumber: string;
  accountName: string;
  levelNumber: number;
  currencyCode: string;
  clientId: number;
  apiKey: string;
  apiSecret: string;
}

export async function createMerchant(deps: Deps, input: CreateMerchantInput): Promise<MerchantCredentials> {
  const currencyCode = input.currencyCode ?? 'MWK';
  const capturedBy = input.capturedBy ?? 'operator';
  if (input.organisationId && !(await repo.organisationExists(deps.db, input.organisationId))) {
    throw new AppError('notFound', 'detail.organisationNotFound', { organisationId: input.organisationId });
  }
  // Numbers are random (not sequential, so they reveal nothing); a collision retries the whole
  // transaction with new numbers.
  return retryOnCollision(() =>
    withTransaction(deps.db, async (tx) => {
      const organisationId = input.organisationId ?? randomUpperAlnum(12);
      if (!input.organisationId) await repo.insertOrganisation(tx, organisationId, input.accountName);
      const merchantAccountNumber = Number(randomDigits(8));
      const paymentAccountNumber = randomDigits(13, '9');
      // The number is claimed first: the merchant's row references its claim.
      await repo.insertPaymentAccountClaim(tx, paymentAccountNumber, merchantAccountNumber);
      const merchant = await repo.insertMerchant(tx, {
        merchant_account_number: merchantAccountNumber,
        organisation_id: organisationId,
        account_name: input.accountName,
        currency_code: currencyCode,
        level_number: input.levelNumber ?? 1,
        payment_account_number: paymentAccountNumber,
        is_demo: input.isDemo ?? false,
        captured_by: capturedBy,
      });
      await openAccounts(tx, merchant.merchant_account_number, currencyCode);
      // The history of its statuses starts with the one it is created with.
      await repo.insertStatusChange(tx, {
        merchantAccountNumber: merchant.merchant_account_number,
        previousStatusCode: null,
        statusCode: merchant.status_code,
        reasonId: NEW_MERCHANT_REASON_ID,
        comments: 'Initial merchant activation',
        changedBy: capturedBy,
        changedVia: 'operator',
      });
      const pair = newKeyPair();
      const key = await insertApiKey(tx, {
        merchantAccountNumber: merchant.merchant_account_number,
        organisationId,
        clientKey: pair.key,
        secret: pair.secret,
        capturedBy,
        expiryDate: null,
      });
      return {
        organisationId,
        merchantAccountNumber: merchant.merchant_account_number,
        paymentAccountNumber: merchant.payment_account_number,
        accountName: merchant.account_name,
        levelNumber: merchant.level_number,
        currencyCode,
        clientId: key.client_id,
        apiKey: pair.key,
        apiSecret: pair.secret,
      };
    }),
  );
}

async function openAccounts(tx: pg.PoolClient, merchantAccountNumber: number, currencyCode: string): Promise<void> {
  await openMerchantAccounts(tx, merchantAccountNumber, currencyCode);
  await repo.seedLimits(tx, merchantAccountNumber, currencyCode);
}

export function accountView(lang: Lang, m: repo.MerchantWithBalances) {
  return {
    organisationId: m.organisation_id,
    accountName: m.account_name,
    merchantAccountNumber: m.merchant_account_number,
    paymentAccountNumber: m.payment_account_number,
    accountBalance: toMajor(m.collection_minor + m.disbursement_minor),
    collectionBalance: toMajor(m.collection_minor),
    disbursmentBalance: toMajor(m.disbursement_minor),
    currencyCode: m.currency_code,
    levelNumber: m.level_number,
    levelName: t(lang, `level.${m.level_number}` as MessageKey),
    statusCode: m.status_code,
    statusName: merchantStatusName(lang, m.status_code),
    capturedBy: m.captured_by,
    dateCreated: m.date_created.toISOString(),
  };
}

export async function getAccount(deps: Deps, lang: Lang, merchantAccountNumber: number) {
  const merchant = await repo.findMerchant(deps.db, merchantAccountNumber);
  if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber });
  return accountView(lang, merchant);
}

export interface TopupInput {
  merchantAccountNumber: number;
  connectorId: number;
  topupAmountMinor: number;
  createdBy: string;
}

/** The transaction a top-up records, as the gateway's client libraries decode it (docs.onekhusa.com, Merchant Account Topup). */
const TOPUP_DESCRIPTION = 'Fake Merchant Account Topup';
/** Money from the merchant's own account at a bank or wallet: "Account to merchant". */
const TOPUP_TRANSACTION_CODE = 'BAM';
/** The sandbox accounts a top-up says it came from (product.md §7's documented test accounts). */
const TOPUP_SOURCE_ACCOUNT = { B: '3333888800', M: '111100000112' } as const;

/**
 * Sandbox funding: credits the disbursement balance from the funding (outside world) account,
 * without a fee (amountReceived = amountSent). `respond` runs inside the same transaction, so an
 * idempotency record commits with the money.
 */
export async function topup<T>(deps: Deps, input: TopupInput, respond: (tx: pg.PoolClient, result: TopupResult) => Promise<T>, lang: Lang = 'en'): Promise<T> {
  const connector = await activeConnector(deps.db, input.connectorId);
  return withTransaction(deps.db, async (tx) => {
    const merchant = await repo.lockMerchant(tx, input.merchantAccountNumber);
    if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: input.merchantAccountNumber });
    if (merchant.status_code !== repo.MERCHANT.active) throw new AppError('merchantInactive', 'detail.merchantInactive', { merchantAccountNumber: input.merchantAccountNumber });
    const reference = randomUpperAlnum(12);
    const sourceReferenceNumber = randomUpperAlnum(12);
    const bridgeReferenceNumber = randomUUID();
    const credit = await merchantAccountId(tx, merchant.merchant_account_number, 'disbursement', merchant.currency_code);
    const funding = await systemAccountId(tx, merchant.merchant_account_number, 'funding', merchant.currency_code);
    await postTransfer(tx, {
      merchantAccountNumber: merchant.merchant_account_number,
      type: 'topup',
      reference,
      metadata: { connectorId: connector.connector_id, createdBy: input.createdBy, sourceReferenceNumber, bridgeReferenceNumber },
      entries: [
        { accountId: funding, amountMinor: -input.topupAmountMinor },
        { accountId: credit, amountMinor: input.topupAmountMinor },
      ],
    });
    const after = await repo.findMerchant(tx, merchant.merchant_account_number);
    const { rows } = await tx.query<{ name: string }>('select transaction_description as name from transaction_types where transaction_code = $1', [TOPUP_TRANSACTION_CODE]);
    const now = deps.clock.now().toISOString();
    const amount = toMajor(input.topupAmountMinor);
    return respond(tx, {
      transactionReferenceNumber: reference,
      beneficiaryAccountNumber: merchant.merchant_account_number,
      beneficiaryName: merchant.account_name,
      beneficiaryCurrencyCode: merchant.currency_code,
      sourceAccountNumber: TOPUP_SOURCE_ACCOUNT[connector.channel_code],
      sourceCustomerName: merchant.account_name,
      sourceReferenceNumber,
      sourceCurrencyCode: merchant.currency_code,
      connectorName: connector.connector_name,
      amountSent: amount,
      amountReceived: amount,
      transactionFee: 0,
      transactionDescription: TOPUP_DESCRIPTION,
      transactionDate: now,
      valueDate: now,
      dateCreated: now,
      transactionCode: TOPUP_TRANSACTION_CODE,
      transactionTypeName: rows[0].name,
      transactionStatusCode: 'S',
      transactionStatusName: t(lang, 'status.S'),
      bridgeReferenceNumber,
      responseCode: 'S100',
      responseMessage: t(lang, 'ok.transactionSuccessful'),
      // What this service answered before issue 14: kept for its own clients.
      merchantAccountNumber: merchant.merchant_account_number,
      connectorId: connector.connector_id,
      topupAmount: amount,
      currencyCode: merchant.currency_code,
      disbursmentBalance: toMajor(after!.disbursement_minor),
      accountBalance: toMajor(after!.collection_minor + after!.disbursement_minor),
    });
  });
}

export interface TopupResult {
  transactionReferenceNumber: string;
  beneficiaryAccountNumber: number;
  beneficiaryName: string;
  beneficiaryCurrencyCode: string;
  sourceAccountNumber: string;
  sourceCustomerName: string;
  sourceReferenceNumber: string;
  sourceCurrencyCode: string;
  connectorName: string;
  amountSent: number;
  amountReceived: number;
  transactionFee: number;
  transactionDescription: string;
  transactionDate: string;
  valueDate: string;
  dateCreated: string;
  transactionCode: string;
  transactionTypeName: string;
  transactionStatusCode: string;
  transactionStatusName: string;
  bridgeReferenceNumber: string;
  responseCode: string;
  responseMessage: string;
  merchantAccountNumber: number;
  connectorId: number;
  topupAmount: number;
  currencyCode: string;
  disbursmentBalance: number;
  accountBalance: number;
}

export interface UpdateMerchantInput {
  merchantAccountNumber: number;
  accountName: string;
  levelNumber: number;
  currencyCode: string;
  /** When given, the account must belong to it (accounts never move between organisations). */
  organisationId?: string;
  modifiedBy: string;
}

/**
 * The operator renames an account or changes its authorisation level (batches and single payouts
 * keep the level they were captured at). The currency is fixed: ledger accounts are per currency,
 * so a different one is refused (402 E916).
 */
export async function updateMerchant(deps: Deps, input: UpdateMerchantInput): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const merchant = await repo.lockMerchantForUpdate(tx, input.merchantAccountNumber);
    if (!merchant || (input.organisationId !== undefined && merchant.organisation_id !== input.organisationId.toUpperCase())) {
      throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: input.merchantAccountNumber });
    }
    if (merchant.currency_code !== input.currencyCode.toUpperCase()) {
      throw new AppError('invalidState', 'detail.merchantCurrencyFixed', { merchantAccountNumber: input.merchantAccountNumber, currencyCode: merchant.currency_code });
    }
    await repo.updateMerchantDetails(tx, input.merchantAccountNumber, { accountName: input.accountName.trim(), levelNumber: input.levelNumber, modifiedBy: input.modifiedBy });
  });
}

export interface MerchantListInput {
  organisationId: string;
  merchantAccountNumber?: number;
  /** The docs' searchBy has one value, AccountName; "" or absent means no search. */
  searchText?: string;
  offset: number;
  limit: number;
}

/** An organisation's accounts, as GET /merchants/accounts/get shows one (getAll). */
export async function listMerchantAccounts(deps: Deps, lang: Lang, input: MerchantListInput) {
  const accountName = input.searchText?.trim() || undefined;
  const rows = await repo.searchMerchants(deps.db, { ...input, organisationId: input.organisationId.toUpperCase(), accountName });
  return rows.map((m) => accountView(lang, m));
}
