// Settlement accounts (issue 19), for administrators (roles.ts):
//   GET  /console/settlement-accounts                       the accounts and the add form
//   POST /console/settlement-accounts/add                   → settlement/service addAccount
//   POST /console/settlement-accounts/:accountId/activate   → activate (one active at a time: refused naming it)
//   POST /console/settlement-accounts/:accountId/deactivate → deactivate
//   POST /console/settlement-accounts/:accountId/delete     → deleteAccount (inactive only)
//   GET  /console/settlement-accounts/:accountId/edit, POST …/update → updateAccount (active only)
// The same service functions as POST /merchants/bankAccounts/*, with the signed-in user as the
// actor (capturedBy, changedBy, deletedBy), each in runAction (actions.tsx): once per form key, in
// one transaction with its audit entry 'settlement_account.<verb>'. The service's refusals are
// shown on the page (the one-active rule names the active account); another merchant's account is
// the 404 page.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type pg from 'pg';
import { AppError } from '../../../../http/errors.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { listConnectors } from '../../../connectors/repository.ts';
import { AccountName, BankAccountNumber } from '../../../settlement/schemas.ts';
import { activate, addAccount, deactivate, deleteAccount, getAccount, listAccounts, SETTLEMENT_ACCOUNT, updateAccount, type SettlementRow } from '../../../settlement/service.ts';
import { ConsoleRefusal, noticeOf, refusalOf, runAction, withNotice } from '../../kit/actions.tsx';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { EMPTY_FORM, type FormState } from '../../kit/admin-forms.tsx';
import {
  accountActionPath,
  ADD_ACCOUNT_PATH,
  editAccountPath,
  EditAccountPage,
  SETTLEMENT_PATH,
  SettlementPage,
  type AccountFormLimits,
  type AccountItem,
  type AccountVerb,
  type BankOption,
} from '../pages/settlement.tsx';
import { at } from '../../kit/at.ts';
import { Form, PathId, pathNumber, Text } from '../../kit/schemas.ts';

const config = { consoleAccess: 'user', consoleSection: 'settlement' } as const;

// The API's formats (settlement/schemas.ts): 10–16 digits, a holder's name of 1–100 characters.
const NUMBER_PATTERN = new RegExp(BankAccountNumber.pattern ?? '^[0-9]{10,16}$', 'u');
const NUMBER_MAX = Number(/\{\d+,(\d+)\}/.exec(BankAccountNumber.pattern ?? '')?.[1] ?? 16);
const NAME_MAX = AccountName.maxLength ?? 100;
const LIMITS: AccountFormLimits = { numberMax: NUMBER_MAX, nameMax: NAME_MAX };

// What each route reads (kit/schemas.ts): the shape only. The fields' own checks stay in
// checkAccount, so that each gets its own message on the form.
/** Account ids are positive bigints (settlement_accounts.account_id). */
const AccountParams = Type.Object({ accountId: PathId });
const AccountForm = Form({ connectorId: Text(), accountNumber: Text(), accountName: Text() });
/** The activate, deactivate and delete buttons post the token and the form key only. */
const ButtonForm = Form({});

function item(s: SettlementRow): AccountItem {
  return {
    accountId: s.account_id,
    accountNumber: s.account_number,
    accountName: s.account_name,
    connectorId: s.connector_id,
    connectorName: s.connector_name,
    statusCode: s.status_code === SETTLEMENT_ACCOUNT.active ? SETTLEMENT_ACCOUNT.active : SETTLEMENT_ACCOUNT.inactive,
    capturedBy: s.captured_by,
    dateCreated: s.date_created,
    modifiedBy: s.modified_by,
    dateModified: s.date_modified,
  };
}

/** The banks settlement can go to (the service refuses any other connector): one per institution, active. */
async function banks(deps: Deps): Promise<BankOption[]> {
  return (await listConnectors(deps.db, { activeInstitutionsOnly: true })).filter((c) => c.channel_code === 'B').map((c) => ({ connectorId: c.connector_id, connectorName: c.connector_name }));
}

/** The account a path names; beyond the safe integers it names none (the 404 page). */
function accountIdOf(given: string): number {
  const accountId = pathNumber(given);
  if (accountId === undefined) throw new AppError('notFound', 'detail.settlementNotFound', { accountId: given.slice(0, 12) });
  return accountId;
}

type AccountValues = Record<'connectorId' | 'accountNumber' | 'accountName', string>;

/** The form's values as typed. */
function accountValues(body: Static<typeof AccountForm>): AccountValues {
  return { connectorId: body.connectorId ?? '', accountNumber: body.accountNumber ?? '', accountName: body.accountName ?? '' };
}

interface AccountInput {
  connectorId: number;
  accountNumber: string;
  accountName: string;
}

/**
 * The add and change forms' fields as the service takes them, or the message of each field that is
 * not (the API's formats; the service checks the bank again: active, a bank).
 */
function checkAccount(lang: Lang, values: AccountValues, offered: readonly BankOption[]): { input: AccountInput } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const bank = values.connectorId.trim();
  if (bank === '') errors.connectorId = ct(lang, 'settlement.error.bankMissing');
  else if (!offered.some((b) => String(b.connectorId) === bank)) errors.connectorId = ct(lang, 'settlement.error.bankUnknown');
  // People copy numbers with the spaces and dashes of their statement: those are not part of it.
  const accountNumber = values.accountNumber.replace(/[\s-]/g, '');
  if (accountNumber === '') errors.accountNumber = ct(lang, 'settlement.error.numberMissing');
  else if (!NUMBER_PATTERN.test(accountNumber)) errors.accountNumber = ct(lang, 'settlement.error.numberInvalid');
  const accountName = values.accountName.trim();
  if (accountName === '') errors.accountName = ct(lang, 'settlement.error.nameMissing');
  else if ([...accountName].length > NAME_MAX) errors.accountName = ct(lang, 'settlement.error.nameTooLong', { max: NAME_MAX });
  if (Object.keys(errors).length > 0) return { errors };
  return { input: { connectorId: Number(bank), accountNumber, accountName } };
}

/** The service's refusals that are about the bank chosen. */
const BANK_REFUSALS: ReadonlySet<string> = new Set(['detail.connectorNotFound', 'detail.connectorInactive', 'detail.settlementNotBank']);

/** A refusal as a form shows it, or undefined for anything else (a bug: the caller rethrows it). */
function refusedForm(err: unknown, lang: Lang, values: Record<string, string>): { status: number; state: FormState } | undefined {
  if (err instanceof ConsoleRefusal) return { status: err.status, state: { values, errors: err.fields, message: Object.keys(err.fields).length ? undefined : err.message } };
  const refusal = refusalOf(err, lang);
  if (!refusal || !(err instanceof AppError)) return undefined;
  if (err.detailKey && BANK_REFUSALS.has(err.detailKey)) return { status: refusal.status, state: { values, errors: { connectorId: refusal.message } } };
  return { status: refusal.status, state: { values, errors: {}, message: refusal.message } };
}

async function sendList(deps: Deps, reply: FastifyReply, context: ConsoleContext, status: number, shown: { notice?: string; error?: string; addForm?: FormState }): Promise<FastifyReply> {
  const accounts = (await listAccounts(deps.db, context.user.merchantAccountNumber)).map(item);
  return sendHtml(
    reply,
    context,
    status,
    page(SettlementPage({ context, accounts, banks: await banks(deps), limits: LIMITS, notice: shown.notice, error: shown.error, addForm: shown.addForm ?? EMPTY_FORM })),
  );
}

function accountList(scope: App, deps: Deps): void {
  scope.get(at(SETTLEMENT_PATH), { config }, async (request, reply) => {
    const context = consoleContext(request);
    return sendList(deps, reply, context, 200, { notice: noticeOf(request, context.lang) });
  });
}

function addForm(scope: App, deps: Deps): void {
  scope.post(at(ADD_ACCOUNT_PATH), { schema: { body: AccountForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const { lang, user } = context;
    const values = accountValues(request.body);
    const checked = checkAccount(lang, values, await banks(deps));
    if ('errors' in checked) return sendList(deps, reply, context, 400, { addForm: { values, errors: checked.errors } });
    try {
      const result = await runAction(deps, request, context, {
        action: 'settlement_account.add',
        run: async (tx) => {
          const accountId = await addAccount(deps, { merchantAccountNumber: user.merchantAccountNumber, ...checked.input, capturedBy: user.emailAddress }, tx);
          return {
            outcome: { location: withNotice(SETTLEMENT_PATH, 'notice.settlement.added') },
            detail: { accountId, accountNumber: checked.input.accountNumber, connectorId: checked.input.connectorId },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusedForm(err, lang, values);
      if (!refused) throw err;
      return sendList(deps, reply, context, refused.status, { addForm: refused.state });
    }
  });
}

/** An account's button: `act` in runAction, 404 for an account that is not this merchant's; a refusal is shown at the top of the list. */
function accountAction(
  scope: App,
  deps: Deps,
  verb: Exclude<AccountVerb, 'update'>,
  notice: Extract<TextKey, `notice.${string}`>,
  act: (tx: pg.PoolClient, merchantAccountNumber: number, accountId: number, by: string) => Promise<void>,
): void {
  scope.post(at(accountActionPath(':accountId', verb)), { schema: { params: AccountParams, body: ButtonForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const merchant = context.user.merchantAccountNumber;
    const accountId = accountIdOf(request.params.accountId);
    // Whether the account is this merchant's is asked inside the action (getAccount: 404), not
    // before it: a second submission of a delete finds the account gone, and must be answered
    // with the first one's outcome (runAction replays it before running anything).
    try {
      const result = await runAction(deps, request, context, {
        action: `settlement_account.${verb}`,
        run: async (tx) => {
          const account = await getAccount(tx, merchant, accountId);
          await act(tx, merchant, accountId, context.user.emailAddress);
          return { outcome: { location: withNotice(SETTLEMENT_PATH, notice) }, detail: { accountId, accountNumber: account.account_number } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusedForm(err, context.lang, {});
      // An account gone in between (deleted by another administrator): the 404 page.
      if (!refused || refused.status === 404) throw err;
      return sendList(deps, reply, context, refused.status, { error: refused.state.message });
    }
  });
}

function accountButtons(scope: App, deps: Deps): void {
  accountAction(scope, deps, 'activate', 'notice.settlement.activated', (tx, merchant, accountId, by) => activate(deps, merchant, accountId, by, tx));
  accountAction(scope, deps, 'deactivate', 'notice.settlement.deactivated', (tx, merchant, accountId, by) => deactivate(deps, merchant, accountId, by, tx));
  accountAction(scope, deps, 'delete', 'notice.settlement.deleted', (tx, merchant, accountId, by) => deleteAccount(deps, merchant, accountId, by, tx));
}

// ---------------------------------------------------------------------------------------------
// Change the active account

async function sendEdit(deps: Deps, reply: FastifyReply, context: ConsoleContext, status: number, account: SettlementRow, state: FormState): Promise<FastifyReply> {
  return sendHtml(reply, context, status, page(EditAccountPage({ context, account: item(account), banks: await banks(deps), limits: LIMITS, state })));
}

function editForm(scope: App, deps: Deps): void {
  scope.get(at(editAccountPath(':accountId')), { schema: { params: AccountParams }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const account = await getAccount(deps.db, context.user.merchantAccountNumber, accountIdOf(request.params.accountId));
    const values = { connectorId: String(account.connector_id), accountNumber: account.account_number, accountName: account.account_name };
    return sendEdit(deps, reply, context, 200, account, { values, errors: {} });
  });

  scope.post(at(accountActionPath(':accountId', 'update')), { schema: { params: AccountParams, body: AccountForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const { lang, user } = context;
    const accountId = accountIdOf(request.params.accountId);
    const account = await getAccount(deps.db, user.merchantAccountNumber, accountId);
    const values = accountValues(request.body);
    // The account's own bank may be an alias the list does not offer: it stays choosable.
    const offered = [...(await banks(deps)), { connectorId: account.connector_id, connectorName: account.connector_name }];
    const checked = checkAccount(lang, values, offered);
    if ('errors' in checked) return sendEdit(deps, reply, context, 400, account, { values, errors: checked.errors });
    try {
      const result = await runAction(deps, request, context, {
        action: 'settlement_account.update',
        run: async (tx) => {
          await updateAccount(deps, { merchantAccountNumber: user.merchantAccountNumber, accountId, ...checked.input, capturedBy: user.emailAddress }, tx);
          return {
            outcome: { location: withNotice(SETTLEMENT_PATH, 'notice.settlement.updated') },
            detail: { accountId, accountNumber: checked.input.accountNumber, connectorId: checked.input.connectorId, previousAccountNumber: account.account_number },
          };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusedForm(err, lang, values);
      if (!refused || refused.status === 404) throw err;
      return sendEdit(deps, reply, context, refused.status, account, refused.state);
    }
  });
}

const route: RouteModule = (scope, { deps }) => {
  accountList(scope, deps);
  addForm(scope, deps);
  accountButtons(scope, deps);
  editForm(scope, deps);
};
export default route;
