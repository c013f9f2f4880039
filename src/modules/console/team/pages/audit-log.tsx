// The audit log (administrators only): who did what in the console, when and from where, newest
// first, filtered by user (what they did and what was done to them), action and UTC days, a keyset
// page at a time. The filters are a GET form and the pager plain links, which htmx turns into a swap
// of the results region (kit/lists.tsx). Everything an entry holds is shown as text: a detail
// value or a user agent that looks like markup stays text.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import type { AuditItem } from '../queries.ts';
import type { Page } from '../../../../http/keyset-pages.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { knownText } from '../../kit/i18n.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { TEAM_MESSAGES } from '../texts.ts';
import { Breakable, fitsDateInput, type FilterProblem } from '../../kit/display.tsx';
import { Cell, Pager, Results, swapping, When, withQuery } from '../../kit/lists.tsx';
import { AUDIT_PATH, TeamBreadcrumbs } from './team.tsx';

/** The region htmx swaps (the route answers it alone when htmx asks for it). */
export const AUDIT_REGION = 'audit-results';

const ACTION_PREFIX = 'team.action.';

/** The actions the console names (team/texts.ts team.action.*), in the order listed there. */
export const KNOWN_ACTIONS: readonly string[] = Object.keys(TEAM_MESSAGES)
  .filter((key) => key.startsWith(ACTION_PREFIX))
  .map((key) => key.slice(ACTION_PREFIX.length));

/** What an action is called in `lang`; an action the console does not name is shown as its code. */
export function actionLabel(lang: Lang, action: string): string {
  const key = `${ACTION_PREFIX}${action}`;
  return knownText(lang, key) ?? action;
}

/** The filter form's values as the query string gave them ('' when absent): shown back as sent. */
export interface AuditFilterValues {
  user: string;
  action: string;
  from: string;
  to: string;
  /** Rows per page: not in the form, kept when an address carries it. */
  limit: string;
}

export function auditUrl(values: AuditFilterValues, after?: string): string {
  return withQuery(AUDIT_PATH, { ...values, after });
}

// ---------------------------------------------------------------------------------------------
// Where an entry came from

const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bSamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/\b(?:Firefox|FxiOS)\/(\d+)/, 'Firefox'],
  [/\b(?:HeadlessChrome|Chrome|CriOS)\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
  [/\bcurl\/(\d+)/, 'curl'],
];

const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/Windows/, 'Windows'],
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** The most of an agent shown when neither its browser nor its system is recognised. */
const AGENT_SHOWN_CHARS = 40;

/** A user agent as a person reads it: "Chrome 131 on Windows"; the start of an unknown one. */
export function shortAgent(lang: Lang, userAgent: string): string {
  if (userAgent.trim() === '') return ct(lang, 'team.unknownAgent');
  const browserMatch = BROWSERS.map(([pattern, name]) => [pattern.exec(userAgent), name] as const).find(([match]) => match);
  const browser = browserMatch ? `${browserMatch[1]}${browserMatch[0]?.[1] ? ` ${browserMatch[0][1]}` : ''}` : undefined;
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return ct(lang, 'team.agentOn', { browser, system });
  if (browser || system) return (browser ?? system) as string;
  return userAgent.length > AGENT_SHOWN_CHARS ? `${userAgent.slice(0, AGENT_SHOWN_CHARS)}…` : userAgent;
}

/** A detail value as text (the log holds strings, numbers, booleans and null; anything else as JSON). */
function detailText(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// The entries

function Who(p: { lang: Lang; entry: AuditItem }): SafeHtml {
  const { lang, entry } = p;
  if (entry.userId && (entry.userName || entry.userEmail)) {
    return (
      <span>
        <span class="who">{entry.userName}</span>
        <span class="sub">
          <Breakable text={entry.userEmail ?? ''} />
        </span>
      </span>
    );
  }
  if (entry.emailTried) {
    return (
      <span class="sub">
        <Breakable text={ct(lang, 'team.typed', { email: entry.emailTried })} />
      </span>
    );
  }
  return <span class="muted">{ct(lang, 'team.noUser')}</span>;
}

function Detail(p: { detail: Record<string, unknown> }): SafeHtml | null {
  // In the order of their names (jsonb keeps them by length, which reads as no order at all).
  const entries = Object.entries(p.detail ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return null;
  return (
    <ul class="audit-detail">
      {entries.map(([key, value]) => (
        <li>
          <span class="detail-key">{key}</span>: <span class="detail-value">{detailText(value)}</span>
        </li>
      ))}
    </ul>
  );
}

export function AuditResults(p: { lang: Lang; values: AuditFilterValues; after: string; result: { page: Page<AuditItem> } | { problem: FilterProblem }; swapped: boolean }): SafeHtml {
  const { lang, values } = p;
  const label = (key: TextKey) => ct(lang, key);
  if ('problem' in p.result) {
    return (
      <Results id={AUDIT_REGION} title={label('team.auditResults')} swapped={p.swapped}>
        <div class="alert alert-error" role="alert" id="filter-problem">
          <strong>{label('filter.problemTitle')}:</strong> {p.result.problem.message}
        </div>
      </Results>
    );
  }
  const { items, next } = p.result.page;
  return (
    <Results id={AUDIT_REGION} title={label('team.auditResults')} swapped={p.swapped}>
      {items.length === 0 ? (
        <p class="empty" id="audit-empty">
          {label('team.auditNone')}
        </p>
      ) : (
        <table class="stack-table audit-table" id="audit-table">
          <caption class="visually-hidden">{label('team.auditCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{label('team.col.when')}</th>
              <th scope="col">{label('team.col.who')}</th>
              <th scope="col">{label('team.col.what')}</th>
              <th scope="col">{label('team.col.where')}</th>
              <th scope="col">{label('team.col.detail')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr id={`audit-${e.auditId}`} data-action={e.action} data-user-id={e.userId ?? ''}>
                <Cell row label={label('team.col.when')}>
                  <When at={e.at} lang={lang} />
                </Cell>
                <Cell label={label('team.col.who')}>
                  <Who lang={lang} entry={e} />
                </Cell>
                <Cell label={label('team.col.what')}>
                  <span class="audit-action">{actionLabel(lang, e.action)}</span>
                </Cell>
                <Cell label={label('team.col.where')}>
                  <span class="audit-ip">{e.ip}</span>
                  <span class="sub" title={e.userAgent}>
                    {shortAgent(lang, e.userAgent)}
                  </span>
                </Cell>
                <Cell label={label('team.col.detail')}>
                  <Detail detail={e.detail} />
                </Cell>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager lang={lang} label={label('team.auditPages')} target={AUDIT_REGION} firstUrl={auditUrl(values)} nextUrl={next ? auditUrl(values, next) : null} onFirstPage={!p.after} />
    </Results>
  );
}

// ---------------------------------------------------------------------------------------------
// The page

export interface UserChoice {
  userId: string;
  name: string;
  emailAddress: string;
}

function invalidProps(problem: FilterProblem | undefined, name: string) {
  return problem?.field === name ? { 'aria-invalid': 'true', 'aria-describedby': 'filter-problem' } : {};
}

function DayField(p: { lang: Lang; name: 'from' | 'to'; label: TextKey; value: string; problem?: FilterProblem }): SafeHtml {
  const isDay = fitsDateInput(p.value);
  return (
    <div class="field">
      <label for={`audit-${p.name}`}>{ct(p.lang, p.label)}</label>
      <input type={isDay ? 'date' : 'text'} id={`audit-${p.name}`} name={p.name} value={p.value} placeholder={isDay ? undefined : 'YYYY-MM-DD'} {...invalidProps(p.problem, p.name)} />
    </div>
  );
}

/** The user filter: the merchant's users, and a value given that is none of them (shown as typed). */
function UserFilter(p: { lang: Lang; value: string; users: UserChoice[]; problem?: FilterProblem }): SafeHtml {
  const { lang, value } = p;
  const known = value === '' || p.users.some((u) => u.userId === value.toLowerCase());
  return (
    <div class="field audit-choice">
      <label for="audit-user">{ct(lang, 'team.filterUser')}</label>
      <select id="audit-user" name="user" aria-describedby="audit-user-hint" {...invalidProps(p.problem, 'user')}>
        <option value="">{ct(lang, 'team.anyone')}</option>
        {p.users.map((u) => (
          <option value={u.userId} selected={u.userId === value.toLowerCase()}>
            {`${u.name} (${u.emailAddress})`}
          </option>
        ))}
        {known ? null : (
          <option value={value} selected>
            {value}
          </option>
        )}
      </select>
      <p class="hint" id="audit-user-hint">
        {ct(lang, 'team.filterUserHint')}
      </p>
    </div>
  );
}

/** The action filter: the actions the console names, and a value given that is none of them (shown as typed). */
function ActionFilter(p: { lang: Lang; value: string; problem?: FilterProblem }): SafeHtml {
  const { lang, value } = p;
  const known = value === '' || KNOWN_ACTIONS.includes(value);
  return (
    <div class="field audit-choice">
      <label for="audit-action">{ct(lang, 'team.filterAction')}</label>
      <select id="audit-action" name="action" {...invalidProps(p.problem, 'action')}>
        <option value="">{ct(lang, 'team.anyAction')}</option>
        {KNOWN_ACTIONS.map((code) => (
          <option value={code} selected={code === value}>
            {actionLabel(lang, code)}
          </option>
        ))}
        {known ? null : (
          <option value={value} selected>
            {value}
          </option>
        )}
      </select>
    </div>
  );
}

export function AuditPage(p: { context: ConsoleContext; values: AuditFilterValues; after: string; users: UserChoice[]; result: { page: Page<AuditItem> } | { problem: FilterProblem } }): SafeHtml {
  const { context, values } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  const problem = 'problem' in p.result ? p.result.problem : undefined;
  return (
    <Layout context={context} title={label('team.auditTitle')} section="team">
      <TeamBreadcrumbs lang={lang} current={label('team.auditTitle')} />
      <h1>{label('team.auditTitle')}</h1>
      <p class="lead">{label('team.auditIntro')}</p>
      <form class="card filter-form" id="audit-filters" role="search" aria-label={label('filter.legend')} method="get" action={AUDIT_PATH} {...swapping(AUDIT_PATH, AUDIT_REGION)}>
        <div class="filter-grid">
          <UserFilter lang={lang} value={values.user} users={p.users} problem={problem} />
          <ActionFilter lang={lang} value={values.action} problem={problem} />
          <DayField lang={lang} name="from" label="filter.from" value={values.from} problem={problem} />
          <DayField lang={lang} name="to" label="filter.to" value={values.to} problem={problem} />
        </div>
        {values.limit !== '' ? <input type="hidden" name="limit" value={values.limit} /> : null}
        <div class="filter-buttons">
          <button class="button" type="submit" id="audit-filter-submit">
            {label('filter.submit')}
          </button>
          <a class="link-button" href={AUDIT_PATH} id="audit-filter-clear">
            {label('filter.clear')}
          </a>
        </div>
      </form>
      <AuditResults lang={lang} values={values} after={p.after} result={p.result} swapped={false} />
    </Layout>
  );
}
