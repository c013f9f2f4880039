// Settlement accounts (administrators only, roles.ts): the merchant's bank accounts with their
// state and, on each, what the settlement service allows (activate an inactive one, deactivate or
// change the active one, delete an inactive one), and the form that adds one. "Activate" is offered
// on every inactive account: while another is active the service refuses it (one active account at
// a time, held by a partial unique index) and the page says which one is active.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { SETTLEMENT_ACCOUNT, type SettlementAccountStatus } from '../../../settlement/service.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { ActionFields, FormProblems, SelectField, TextField, type FormState } from '../../kit/admin-forms.tsx';
import { Cell, When } from '../../kit/lists.tsx';
import { Alerts } from '../../kit/display.tsx';

export const SETTLEMENT_PATH = SECTION_PATHS.settlement;
export const ADD_ACCOUNT_PATH = `${SETTLEMENT_PATH}/add`;
export type AccountVerb = 'activate' | 'deactivate' | 'delete' | 'update';
export const accountActionPath = (accountId: number | string, verb: AccountVerb) => `${SETTLEMENT_PATH}/${accountId}/${verb}`;
export const editAccountPath = (accountId: number | string) => `${SETTLEMENT_PATH}/${accountId}/edit`;

/** A settlement account as the pages show it (settlement/service.ts settlementView's facts). */
export interface AccountItem {
  accountId: number;
  accountNumber: string;
  accountName: string;
  connectorId: number;
  connectorName: string;
  /** Never deleted: a deleted account is not shown. */
  statusCode: Exclude<SettlementAccountStatus, typeof SETTLEMENT_ACCOUNT.deleted>;
  capturedBy: string;
  dateCreated: Date;
  modifiedBy: string | null;
  dateModified: Date | null;
}

/** A bank the forms offer. */
export interface BankOption {
  connectorId: number;
  connectorName: string;
}

export interface AccountFormLimits {
  /** The most digits an account number has (the input takes a few more: spaces and dashes people copy). */
  numberMax: number;
  nameMax: number;
}

function StatusBadge(p: { lang: Lang; status: AccountItem['statusCode'] }): SafeHtml {
  return <span class={p.status === SETTLEMENT_ACCOUNT.active ? 'badge badge-ok' : 'badge admin-badge-off'}>{ct(p.lang, p.status === SETTLEMENT_ACCOUNT.active ? 'settlement.status.A' : 'settlement.status.I')}</span>;
}

/** A button of an account's row: a form of its own (CSRF token, form key), named for that account. */
function RowAction(p: { context: ConsoleContext; account: AccountItem; verb: Exclude<AccountVerb, 'update'>; label: TextKey; danger?: boolean }): SafeHtml {
  const { context, account } = p;
  return (
    <form method="post" action={accountActionPath(account.accountId, p.verb)} class="inline-form" id={`${p.verb}-${account.accountId}`}>
      <ActionFields context={context} />
      <button class={p.danger ? 'link-button admin-link-danger' : 'link-button'} type="submit">
        {ct(context.lang, p.label)}
        <span class="visually-hidden"> {ct(context.lang, 'settlement.accountHidden', { number: account.accountNumber })}</span>
      </button>
    </form>
  );
}

function AccountFields(p: { lang: Lang; prefix: string; banks: readonly BankOption[]; state: FormState; limits: AccountFormLimits }): SafeHtml {
  const { lang, state } = p;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <div class="admin-grid">
      <SelectField
        id={`${p.prefix}-bank`}
        name="connectorId"
        label={label('settlement.bank')}
        placeholder={label('settlement.bankChoose')}
        value={state.values.connectorId ?? ''}
        options={p.banks.map((b): [string, string] => [String(b.connectorId), b.connectorName])}
        error={state.errors.connectorId}
        required
      />
      <TextField
        id={`${p.prefix}-number`}
        name="accountNumber"
        label={label('settlement.accountNumber')}
        hint={label('settlement.accountNumberHint')}
        value={state.values.accountNumber ?? ''}
        error={state.errors.accountNumber}
        inputmode="numeric"
        autocomplete="off"
        maxlength={p.limits.numberMax + 6}
        required
      />
      <TextField
        id={`${p.prefix}-name`}
        name="accountName"
        label={label('settlement.accountName')}
        hint={ct(lang, 'settlement.accountNameHint', { max: p.limits.nameMax })}
        value={state.values.accountName ?? ''}
        error={state.errors.accountName}
        autocomplete="off"
        maxlength={p.limits.nameMax}
        required
      />
    </div>
  );
}

export const fieldIds = (prefix: string) => ({ connectorId: `${prefix}-bank`, accountNumber: `${prefix}-number`, accountName: `${prefix}-name` });

export interface SettlementPageProps {
  context: ConsoleContext;
  accounts: AccountItem[];
  banks: readonly BankOption[];
  limits: AccountFormLimits;
  notice?: string;
  /** A refusal of a row's button (activate, deactivate, delete): its message at the top. */
  error?: string;
  /** The add form, as sent when it was refused. */
  addForm: FormState;
}

/** What can be done to an account: change or deactivate the active one; activate or delete an inactive one. */
function AccountActions(p: { context: ConsoleContext; account: AccountItem }): SafeHtml {
  const { context, account: a } = p;
  const lang = context.lang;
  return (
    <div class="settlement-actions" role="group" aria-label={ct(lang, 'settlement.actionsFor', { number: a.accountNumber })}>
      {a.statusCode === SETTLEMENT_ACCOUNT.active ? (
        <a class="link-button" href={editAccountPath(a.accountId)} id={`edit-${a.accountId}`}>
          {ct(lang, 'settlement.edit')}
          <span class="visually-hidden"> {ct(lang, 'settlement.accountHidden', { number: a.accountNumber })}</span>
        </a>
      ) : null}
      {a.statusCode === SETTLEMENT_ACCOUNT.active ? (
        <RowAction context={context} account={a} verb="deactivate" label="settlement.deactivate" />
      ) : (
        <RowAction context={context} account={a} verb="activate" label="settlement.activate" />
      )}
      {a.statusCode === SETTLEMENT_ACCOUNT.inactive ? <RowAction context={context} account={a} verb="delete" label="settlement.delete" danger /> : null}
    </div>
  );
}

/** The merchant's accounts, one row each with its state, its history and its buttons. */
function AccountsTable(p: { context: ConsoleContext; accounts: AccountItem[] }): SafeHtml {
  const { context } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <table class="stack-table settlement-table" id="accounts-table">
      <caption class="visually-hidden">{label('settlement.caption')}</caption>
      <thead>
        <tr>
          <th scope="col">{label('settlement.col.account')}</th>
          <th scope="col">{label('settlement.col.bank')}</th>
          <th scope="col">{label('settlement.col.status')}</th>
          <th scope="col">{label('settlement.col.added')}</th>
          <th scope="col">{label('settlement.col.changed')}</th>
          <th scope="col">{label('settlement.col.actions')}</th>
        </tr>
      </thead>
      <tbody>
        {p.accounts.map((a) => (
          <tr id={`account-${a.accountId}`} data-account-id={a.accountId} data-status={a.statusCode}>
            <Cell row label={label('settlement.col.account')}>
              <span class="reference">{a.accountNumber}</span>
              <span class="sub">{a.accountName}</span>
            </Cell>
            <Cell label={label('settlement.col.bank')}>{a.connectorName}</Cell>
            <Cell label={label('settlement.col.status')}>
              <StatusBadge lang={lang} status={a.statusCode} />
            </Cell>
            <Cell label={label('settlement.col.added')}>
              <When at={a.dateCreated} lang={lang} />
              <span class="sub">{ct(lang, 'settlement.by', { who: a.capturedBy })}</span>
            </Cell>
            <Cell label={label('settlement.col.changed')}>
              {a.dateModified ? <When at={a.dateModified} lang={lang} /> : <span class="muted">{label('settlement.never')}</span>}
              {a.modifiedBy ? <span class="sub">{ct(lang, 'settlement.by', { who: a.modifiedBy })}</span> : null}
            </Cell>
            <Cell label={label('settlement.col.actions')}>
              <AccountActions context={context} account={a} />
            </Cell>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SettlementPage(p: SettlementPageProps): SafeHtml {
  const { context, accounts } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <Layout context={context} title={label('settlement.title')} section="settlement" languageUrl={SETTLEMENT_PATH}>
      <h1>{label('settlement.title')}</h1>
      <Alerts notice={p.notice} error={p.error} />
      <p class="lead">{label('settlement.intro')}</p>
      {accounts.length === 0 ? (
        <p class="empty" id="accounts-empty">
          {label('settlement.none')}
        </p>
      ) : (
        <AccountsTable context={context} accounts={accounts} />
      )}
      <section class="card" aria-labelledby="add-title" id="add-account">
        <h2 id="add-title">{label('settlement.addTitle')}</h2>
        <p>{label('settlement.addIntro')}</p>
        <form method="post" action={ADD_ACCOUNT_PATH} id="add-form" novalidate>
          <ActionFields context={context} />
          <FormProblems id="add-problems" title={label('settlement.problems')} state={p.addForm} fieldIds={fieldIds('add')} />
          <AccountFields lang={lang} prefix="add" banks={p.banks} state={p.addForm} limits={p.limits} />
          <button class="button" type="submit" id="add-submit">
            {label('settlement.add')}
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function EditAccountPage(p: { context: ConsoleContext; account: AccountItem; banks: readonly BankOption[]; limits: AccountFormLimits; state: FormState }): SafeHtml {
  const { context, account } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  const title = ct(lang, 'settlement.editTitle', { number: account.accountNumber });
  // The account's own bank stays choosable even when it is not among the ones offered (an alias id).
  const banks = p.banks.some((b) => b.connectorId === account.connectorId) ? p.banks : [...p.banks, { connectorId: account.connectorId, connectorName: account.connectorName }];
  return (
    <Layout context={context} title={title} section="settlement" languageUrl={editAccountPath(account.accountId)}>
      <nav class="breadcrumbs" aria-label={label('settlement.breadcrumbs')}>
        <ol>
          <li>
            <a href={SETTLEMENT_PATH}>{label('settlement.title')}</a>
          </li>
          <li aria-current="page">{account.accountNumber}</li>
        </ol>
      </nav>
      <h1>{title}</h1>
      <p class="lead">{label('settlement.editIntro')}</p>
      <form class="card admin-form" method="post" action={accountActionPath(account.accountId, 'update')} id="edit-form" novalidate>
        <ActionFields context={context} />
        <FormProblems id="edit-problems" title={label('settlement.problems')} state={p.state} fieldIds={fieldIds('edit')} />
        <AccountFields lang={lang} prefix="edit" banks={banks} state={p.state} limits={p.limits} />
        <div class="admin-buttons">
          <button class="button" type="submit" id="edit-submit">
            {label('settlement.save')}
          </button>
          <a class="link-button" href={SETTLEMENT_PATH}>
            {label('settlement.cancel')}
          </a>
        </div>
      </form>
    </Layout>
  );
}
