// Merchant accounts: creation by the operator (with ledger accounts, default limits and a first
// key pair, in one transaction), the account view with balances, and sandbox top-ups.
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import { AppError } from '../../http/errors.ts';
import { t, type Lang, type MessageKey } from '../../http/i18n.ts';
import type { Deps } from '../../http/types.ts';
import { randomDigits, randomUpperAlnum, retryOnCollision } from '../../lib/ids.ts';
import { toMajor } from '../../lib/money.ts';
import { insertApiKey, newKeyPair } from '../api-keys/repository.ts';
import { activeConnector } from '../connectors/repository.ts';
import { merchantAccountId, openMerchantAccounts, postTransfer, systemAccountId } from './ledger.ts';
import * as repo from './repository.ts';

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
      const merchant = await repo.insertMerchant(tx, {
        merchant_account_number: Number(randomDigits(8)),
        organisation_id: organisationId,
        account_name: input.accountName,
        currency_code: currencyCode,
        level_number: input.levelNumber ?? 1,
        payment_account_number: randomDigits(13, '9'),
        is_demo: input.isDemo ?? false,
        captured_by: capturedBy,
      });
      await openAccounts(tx, merchant.merchant_account_number, currencyCode);
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
    statusName: t(lang, `status.${m.status_code}` as MessageKey),
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

/**
 * Sandbox funding: credits the disbursement balance from the funding (outside world) account.
 * `respond` runs inside the same transaction, so an idempotency record commits with the money.
 */
export async function topup<T>(deps: Deps, input: TopupInput, respond: (tx: pg.PoolClient, result: TopupResult) => Promise<T>): Promise<T> {
  const connector = await activeConnector(deps.db, input.connectorId);
  return withTransaction(deps.db, async (tx) => {
    const merchant = await repo.lockMerchant(tx, input.merchantAccountNumber);
    if (!merchant) throw new AppError('notFound', 'detail.merchantNotFound', { merchantAccountNumber: input.merchantAccountNumber });
    if (merchant.status_code !== 'A') throw new AppError('merchantInactive', 'detail.merchantInactive', { merchantAccountNumber: input.merchantAccountNumber });
    const reference = randomUpperAlnum(12);
    const credit = await merchantAccountId(tx, merchant.merchant_account_number, 'disbursement', merchant.currency_code);
    const funding = await systemAccountId(tx, 'funding', merchant.currency_code);
    await postTransfer(tx, {
      merchantAccountNumber: merchant.merchant_account_number,
      type: 'topup',
      reference,
      metadata: { connectorId: connector.connector_id, createdBy: input.createdBy },
      entries: [
        { accountId: funding, amountMinor: -input.topupAmountMinor },
        { accountId: credit, amountMinor: input.topupAmountMinor },
      ],
    });
    const after = await repo.findMerchant(tx, merchant.merchant_account_number);
    return respond(tx, {
      merchantAccountNumber: merchant.merchant_account_number,
      transactionReferenceNumber: reference,
      connectorId: connector.connector_id,
      connectorName: connector.connector_name,
      topupAmount: toMajor(input.topupAmountMinor),
      currencyCode: merchant.currency_code,
      disbursmentBalance: toMajor(after!.disbursement_minor),
      accountBalance: toMajor(after!.collection_minor + after!.disbursement_minor),
      dateCreated: deps.clock.now().toISOString(),
    });
  });
}

export interface TopupResult {
  merchantAccountNumber: number;
  transactionReferenceNumber: string;
  connectorId: number;
  connectorName: string;
  topupAmount: number;
  currencyCode: string;
  disbursmentBalance: number;
  accountBalance: number;
  dateCreated: string;
}
