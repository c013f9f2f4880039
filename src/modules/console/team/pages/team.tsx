// The team pages (administrators only, roles.ts): the merchant's users with how each one signs in,
// one user with the forms that change them (role, a new invitation, close or activate), and the
// invitation form. Every form posts to team/routes/team.ts, which calls the users module's service (as
// POST /security/merchantUsers/add, PUT …/update, …/close, …/activate and POST …/reinvite do) with
// the signed-in user as the actor.
import { h, type SafeHtml } from '../../../../lib/html/jsx.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { USER, type UserStatus } from '../../../users/repository.ts';
import type { TeamMember } from '../queries.ts';
import type { ConsoleContext } from '../../kit/http.ts';
import { roleName } from '../../kit/i18n.ts';
import { ct, type TextKey } from '../texts.ts';
import { Layout } from '../../kit/layout.tsx';
import { SECTION_PATHS } from '../../kit/paths.ts';
import { ActionFields, FormProblems, SelectField, TextField, type FormState } from '../../kit/admin-forms.tsx';
import { Cell, When } from '../../kit/lists.tsx';
import { Alerts, Breakable } from '../../kit/display.tsx';

export const TEAM_PATH = SECTION_PATHS.team;
export const INVITE_PATH = `${TEAM_PATH}/invite`;
export const AUDIT_PATH = `${TEAM_PATH}/audit`;
export const userPath = (userId: string) => `${TEAM_PATH}/users/${userId}`;
/** The forms of one user's page post here. */
export type UserVerb = 'role' | 'reinvite' | 'close' | 'activate';
export const userActionPath = (userId: string, verb: UserVerb) => `${userPath(userId)}/${verb}`;

/** A role the forms offer: its code (what the service takes) and its stored name. */
export interface RoleOption {
  code: string;
  name: string;
}

export function roleOptions(lang: Lang, roles: readonly RoleOption[]): Array<[string, string]> {
  return roles.map((r): [string, string] => [r.code, roleName(lang, r.code, r.name)]);
}

function fullName(u: Pick<TeamMember, 'firstName' | 'lastName'>): string {
  return `${u.firstName} ${u.lastName}`;
}

function StatusBadge(p: { lang: Lang; status: UserStatus }): SafeHtml {
  return <span class={p.status === USER.active ? 'badge badge-ok' : 'badge admin-badge-off'}>{ct(p.lang, p.status === USER.active ? 'team.status.A' : 'team.status.C')}</span>;
}

/**
 * Password set; or the invitation pending, with the time its link stops working; or, for an active
 * user, an invitation whose link no longer works (expired or revoked: send a new one); else not set.
 */
function PasswordState(p: { lang: Lang; user: TeamMember }): SafeHtml {
  const { lang, user } = p;
  if (user.isPasswordSet) return <span class="badge badge-ok">{ct(lang, 'team.passwordSet')}</span>;
  if (user.invitationExpiresAt) {
    return (
      <span>
        <span class="badge badge-warn">{ct(lang, 'team.invitationPending')}</span>
        <span class="sub">
          {ct(lang, 'team.linkUntil')} <When at={user.invitationExpiresAt} lang={lang} />
        </span>
      </span>
    );
  }
  if (user.statusCode === USER.active) return <span class="badge badge-warn">{ct(lang, 'team.invitationExpired')}</span>;
  return <span class="badge admin-badge-off">{ct(lang, 'team.passwordNotSet')}</span>;
}

function TwoFactor(p: { lang: Lang; on: boolean }): SafeHtml {
  return <span class={p.on ? 'badge badge-ok' : 'badge admin-badge-off'}>{ct(p.lang, p.on ? 'team.twoFactorOn' : 'team.twoFactorOff')}</span>;
}

function LastSignIn(p: { lang: Lang; at: Date | null }): SafeHtml {
  return p.at ? <When at={p.at} lang={p.lang} /> : <span class="muted">{ct(p.lang, 'team.never')}</span>;
}

/** The way back to the team from one of its pages: `current` names the page. */
export function TeamBreadcrumbs(p: { lang: Lang; current: string }): SafeHtml {
  return (
    <nav class="breadcrumbs" aria-label={ct(p.lang, 'team.breadcrumbs')}>
      <ol>
        <li>
          <a href={TEAM_PATH}>{ct(p.lang, 'team.title')}</a>
        </li>
        <li aria-current="page">{p.current}</li>
      </ol>
    </nav>
  );
}

// ---------------------------------------------------------------------------------------------
// The team

export function TeamPage(p: { context: ConsoleContext; members: TeamMember[]; more: boolean; maxUsers: number; notice?: string }): SafeHtml {
  const { context, members } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <Layout context={context} title={label('team.title')} section="team">
      <div class="team-head">
        <h1>{label('team.title')}</h1>
        <div class="team-actions">
          <a class="button" href={INVITE_PATH} id="invite-link">
            {label('team.inviteLink')}
          </a>
          <a class="link-button" href={AUDIT_PATH} id="audit-link">
            {label('team.auditLink')}
          </a>
        </div>
      </div>
      <Alerts notice={p.notice} />
      <p class="lead">{label('team.intro')}</p>
      <table class="stack-table team-table" id="team-table">
        <caption class="visually-hidden">{label('team.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{label('team.col.name')}</th>
            <th scope="col">{label('team.col.role')}</th>
            <th scope="col">{label('team.col.status')}</th>
            <th scope="col">{label('team.col.signIn')}</th>
            <th scope="col">{label('team.col.twoFactor')}</th>
            <th scope="col">{label('team.col.lastSignIn')}</th>
          </tr>
        </thead>
        <tbody>
          {members.map((u) => (
            <tr id={`user-${u.userId}`} data-user-id={u.userId} data-email={u.emailAddress}>
              <Cell row label={label('team.col.name')}>
                <a href={userPath(u.userId)} class="user-name">
                  {fullName(u)}
                </a>
                {u.userId === context.user.userId ? <span class="chip">{label('team.you')}</span> : null}
                <span class="sub">
                  <Breakable text={u.emailAddress} />
                </span>
              </Cell>
              <Cell label={label('team.col.role')}>
                <span class="user-role">{roleName(lang, u.roleCode, u.roleName)}</span>
              </Cell>
              <Cell label={label('team.col.status')}>
                <StatusBadge lang={lang} status={u.statusCode} />
              </Cell>
              <Cell label={label('team.col.signIn')}>
                <PasswordState lang={lang} user={u} />
              </Cell>
              <Cell label={label('team.col.twoFactor')}>
                <TwoFactor lang={lang} on={u.twoFactor} />
              </Cell>
              <Cell label={label('team.col.lastSignIn')}>
                <LastSignIn lang={lang} at={u.lastSignInAt} />
              </Cell>
            </tr>
          ))}
        </tbody>
      </table>
      {p.more ? <p class="hint">{ct(lang, 'team.tooMany', { max: p.maxUsers })}</p> : null}
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// One user

function Fact(p: { id: string; label: string; children?: SafeHtml | string | null | Array<SafeHtml | string | null> }): SafeHtml {
  return (
    <div class="fact" id={`user-${p.id}`}>
      <dt>{p.label}</dt>
      <dd>{p.children}</dd>
    </div>
  );
}

function Step(p: { lang: Lang; who: string | null; at: Date | null }): SafeHtml {
  return (
    <span>
      {p.at ? <When at={p.at} lang={p.lang} /> : null}
      {p.who ? (
        <span class="sub">
          <Breakable text={ct(p.lang, 'team.by', { who: p.who })} />
        </span>
      ) : null}
    </span>
  );
}

export interface UserPageProps {
  context: ConsoleContext;
  user: TeamMember;
  roles: readonly RoleOption[];
  notice?: string;
  /** Where the notice sends the reader next (a held invitation's outbox). */
  noticeLink?: { href: string; text: string };
  /** A refusal of one of the page's forms: which one, and its state. */
  refused?: { form: UserVerb; state: FormState };
}

/** What the team knows of the user: contact, role, state, sign-in, and who added and changed them. */
function UserDetails(p: { lang: Lang; user: TeamMember }): SafeHtml {
  const { lang, user } = p;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <section class="card" aria-labelledby="details-title">
      <h2 id="details-title">{label('team.details')}</h2>
      <dl class="facts">
        <Fact id="email" label={label('team.email')}>
          <Breakable text={user.emailAddress} />
        </Fact>
        <Fact id="phone" label={label('team.phone')}>
          {user.phoneNumber}
        </Fact>
        <Fact id="role" label={label('team.role')}>
          {roleName(lang, user.roleCode, user.roleName)}
        </Fact>
        <Fact id="status" label={label('team.status')}>
          <StatusBadge lang={lang} status={user.statusCode} />
        </Fact>
        <Fact id="password" label={label('team.password')}>
          <PasswordState lang={lang} user={user} />
        </Fact>
        <Fact id="two-factor" label={label('team.twoFactor')}>
          <TwoFactor lang={lang} on={user.twoFactor} />
        </Fact>
        <Fact id="last-sign-in" label={label('team.lastSignIn')}>
          <LastSignIn lang={lang} at={user.lastSignInAt} />
        </Fact>
        <Fact id="added" label={label('team.added')}>
          <Step lang={lang} who={user.capturedBy} at={user.dateCreated} />
        </Fact>
        {user.dateModified || user.modifiedBy ? (
          <Fact id="changed" label={label('team.changed')}>
            <Step lang={lang} who={user.modifiedBy} at={user.dateModified} />
          </Fact>
        ) : null}
      </dl>
      <p class="team-after">
        <a href={`${AUDIT_PATH}?user=${user.userId}`} id="user-audit-link">
          {label('team.auditOfUser')}
        </a>
      </p>
    </section>
  );
}

/** The role form; the signed-in user's own role is not changed here (they would lock themselves out). */
function RoleCard(p: { context: ConsoleContext; user: TeamMember; roles: readonly RoleOption[]; self: boolean; state?: FormState }): SafeHtml {
  const { context, user, state } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <section class="card" aria-labelledby="role-title">
      <h2 id="role-title">{label('team.roleTitle')}</h2>
      {p.self ? (
        <p id="own-role">{label('team.ownRole')}</p>
      ) : (
        <form method="post" action={userActionPath(user.userId, 'role')} id="role-form" novalidate>
          <ActionFields context={context} />
          {state ? <FormProblems id="role-problems" title={label('team.problems')} state={state} fieldIds={{ roleId: 'role-select' }} /> : null}
          <SelectField
            id="role-select"
            name="roleId"
            label={ct(lang, 'team.roleOf', { name: fullName(user) })}
            hint={label('team.roleHint')}
            value={state?.values.roleId ?? user.roleCode}
            options={roleOptions(lang, p.roles)}
            error={state?.errors.roleId}
            required
          />
          <button class="button" type="submit" id="change-role">
            {label('team.changeRole')}
          </button>
        </form>
      )}
    </section>
  );
}

/** A new invitation, for an active user who has not set a password yet. */
function InvitationCard(p: { context: ConsoleContext; user: TeamMember }): SafeHtml {
  const { context, user } = p;
  const lang = context.lang;
  return (
    <section class="card" aria-labelledby="invitation-title">
      <h2 id="invitation-title">{ct(lang, 'team.invitationTitle')}</h2>
      <p>{ct(lang, 'team.invitationText', { name: fullName(user) })}</p>
      <form method="post" action={userActionPath(user.userId, 'reinvite')} id="reinvite-form">
        <ActionFields context={context} />
        <button class="button" type="submit" id="reinvite">
          {ct(lang, 'team.reinvite')}
        </button>
      </form>
    </section>
  );
}

/** Close an active user, or activate a closed one; not the signed-in user themselves. */
function AccessCard(p: { context: ConsoleContext; user: TeamMember; self: boolean }): SafeHtml {
  const { context, user } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  const name = fullName(user);
  return (
    <section class="card" aria-labelledby="access-title">
      <h2 id="access-title">{label('team.accessTitle')}</h2>
      {p.self ? (
        <p id="own-close">{label('team.ownClose')}</p>
      ) : user.statusCode === USER.active ? (
        <form method="post" action={userActionPath(user.userId, 'close')} id="close-form">
          <ActionFields context={context} />
          <p>{ct(lang, 'team.closeText', { name })}</p>
          <button class="button admin-danger" type="submit" id="close-user">
            {label('team.close')}
          </button>
        </form>
      ) : (
        <form method="post" action={userActionPath(user.userId, 'activate')} id="activate-form">
          <ActionFields context={context} />
          <p>{ct(lang, 'team.closedText', { name })}</p>
          <button class="button" type="submit" id="activate-user">
            {label('team.activate')}
          </button>
        </form>
      )}
    </section>
  );
}

export function UserPage(p: UserPageProps): SafeHtml {
  const { context, user } = p;
  const lang = context.lang;
  const name = fullName(user);
  const self = user.userId === context.user.userId;
  const roleState = p.refused?.form === 'role' ? p.refused.state : undefined;
  // A refusal of the buttons (reinvite, close, activate) has no field, nor one of a role form this
  // user is not shown (their own): its message goes at the top.
  const topError = p.refused && (p.refused.form !== 'role' || self) ? p.refused.state.message : undefined;
  return (
    <Layout context={context} title={name} section="team" languageUrl={userPath(user.userId)}>
      <TeamBreadcrumbs lang={lang} current={name} />
      <h1 id="user-title">
        {name}
        {self ? <span class="chip">{ct(lang, 'team.you')}</span> : null}
      </h1>
      <Alerts notice={p.notice} error={topError} link={p.noticeLink} />
      <div class="team-user">
        <UserDetails lang={lang} user={user} />
        <RoleCard context={context} user={user} roles={p.roles} self={self} state={roleState} />
        {user.statusCode === USER.active && !user.isPasswordSet ? <InvitationCard context={context} user={user} /> : null}
        <AccessCard context={context} user={user} self={self} />
      </div>
    </Layout>
  );
}

// ---------------------------------------------------------------------------------------------
// The invitation form

/** The invitation form's fields: the names the form posts, and the ids of their inputs. */
export const INVITE_FIELDS = {
  firstName: 'invite-first-name',
  lastName: 'invite-last-name',
  emailAddress: 'invite-email',
  phoneNumber: 'invite-phone',
  roleId: 'invite-role',
} as const;

/** The person's names, address and phone number (the role is chosen below them). */
function InviteFields(p: { lang: Lang; state: FormState; nameMax: number; emailMax: number }): SafeHtml {
  const { lang, state } = p;
  const label = (key: TextKey) => ct(lang, key);
  const value = (name: keyof typeof INVITE_FIELDS) => state.values[name] ?? '';
  const refused = Boolean(state.message) || Object.keys(state.errors).length > 0;
  return (
    <div class="admin-grid">
      <TextField
        id={INVITE_FIELDS.firstName}
        name="firstName"
        label={label('team.firstName')}
        value={value('firstName')}
        error={state.errors.firstName}
        autocomplete="off"
        maxlength={p.nameMax}
        required
        autofocus={!refused}
      />
      <TextField
        id={INVITE_FIELDS.lastName}
        name="lastName"
        label={label('team.lastName')}
        value={value('lastName')}
        error={state.errors.lastName}
        autocomplete="off"
        maxlength={p.nameMax}
        required
      />
      <TextField
        id={INVITE_FIELDS.emailAddress}
        name="emailAddress"
        type="email"
        label={label('team.email')}
        hint={label('team.emailHint')}
        value={value('emailAddress')}
        error={state.errors.emailAddress}
        autocomplete="off"
        maxlength={p.emailMax}
        required
      />
      <TextField
        id={INVITE_FIELDS.phoneNumber}
        name="phoneNumber"
        type="tel"
        label={label('team.phone')}
        hint={label('team.phoneHint')}
        value={value('phoneNumber')}
        error={state.errors.phoneNumber}
        autocomplete="off"
        inputmode="tel"
        maxlength={20}
        required
      />
    </div>
  );
}

export function InvitePage(p: { context: ConsoleContext; roles: readonly RoleOption[]; state: FormState; invitationHours: number; nameMax: number; emailMax: number }): SafeHtml {
  const { context, state } = p;
  const lang = context.lang;
  const label = (key: TextKey) => ct(lang, key);
  return (
    <Layout context={context} title={label('team.inviteTitle')} section="team" languageUrl={INVITE_PATH}>
      <TeamBreadcrumbs lang={lang} current={label('team.inviteTitle')} />
      <h1>{label('team.inviteTitle')}</h1>
      <p class="lead">{ct(lang, 'team.inviteIntro', { hours: p.invitationHours })}</p>
      <form class="card admin-form" method="post" action={INVITE_PATH} id="invite-form" novalidate>
        <ActionFields context={context} />
        <FormProblems id="invite-problems" title={label('team.problems')} state={state} fieldIds={INVITE_FIELDS} />
        <InviteFields lang={lang} state={state} nameMax={p.nameMax} emailMax={p.emailMax} />
        <SelectField
          id={INVITE_FIELDS.roleId}
          name="roleId"
          label={label('team.role')}
          hint={label('team.roleHelp')}
          placeholder={label('team.roleChoose')}
          value={state.values.roleId ?? ''}
          options={roleOptions(lang, p.roles)}
          error={state.errors.roleId}
          required
        />
        <div class="admin-buttons">
          <button class="button" type="submit" id="send-invitation">
            {label('team.sendInvitation')}
          </button>
          <a class="link-button" href={TEAM_PATH}>
            {label('team.cancel')}
          </a>
        </div>
      </form>
    </Layout>
  );
}
