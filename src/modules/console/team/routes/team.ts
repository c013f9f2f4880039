// Team (issue 19): the merchant's users and the audit log, for administrators (roles.ts).
//   GET  /console/team                          the users, with how each signs in
//   GET  /console/team/invite, POST             the invitation form → users/service addUser
//   GET  /console/team/users/:userId            one user and the forms below
//   POST /console/team/users/:userId/role       → updateMerchantUser (the role; the rest as it is)
//   POST /console/team/users/:userId/reinvite   → reinviteMerchantUser
//   POST /console/team/users/:userId/close      → closeMerchantUser (ends their sessions in its transaction)
//   POST /console/team/users/:userId/activate   → activateMerchantUser
//   GET  /console/team/audit                    the audit log, filtered and keyset paged
// Each POST runs through runAction (actions.tsx): once per form key, in one transaction with the
// service's writes and the audit entry 'user.<verb>' naming the user acted on. The signed-in user is
// the actor (capturedBy, modifiedBy, changedBy). A user of another merchant is the 404 page.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { publicBaseUrl } from '../../../../http/base-url.ts';
import { AppError } from '../../../../http/errors.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { Email } from '../../../../http/schemas.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { actorProblem } from '../../../../lib/actor.ts';
import { findUser, listRoles } from '../../../users/repository.ts';
import { NAME_MAX_LENGTH, PersonName, PhoneNumber } from '../../../users/schemas.ts';
import { activateMerchantUser, addUser, closeMerchantUser, reinviteMerchantUser, updateMerchantUser } from '../../../users/service.ts';
import { ConsoleRefusal, noticeOf, refusalOf, runAction, withNotice } from '../../kit/actions.tsx';
import { listAuditEntries, organisationOf, TEAM_MAX_USERS, teamMember, teamMembers, userChoices } from '../queries.ts';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { EMPTY_FORM, type FormState } from '../../kit/admin-forms.tsx';
import { AUDIT_REGION, AuditPage, AuditResults, type AuditFilterValues } from '../pages/audit-log.tsx';
import { filterProblem } from '../../kit/display.tsx';
import { heldMailLink, mailNotice } from '../../kit/mail.ts';
import { AUDIT_PATH, INVITE_PATH, InvitePage, TEAM_PATH, TeamPage, userActionPath, UserPage, userPath, type RoleOption, type UserVerb } from '../pages/team.tsx';
import { at } from '../../kit/at.ts';
import { sendListPage, sendRegion, wantsRegion } from '../../kit/regions.ts';
import { Form, Query, Text } from '../../kit/schemas.ts';

const config = { consoleAccess: 'user', consoleSection: 'team' } as const;

// What each route reads (kit/schemas.ts): the shape only. The fields' own checks stay below, so that
// each gets its own message on the form.
/** A user id: any text (teamMember answers undefined, the 404 page, for one that is not a user id). */
const UserParams = Type.Object({ userId: Type.String() });
const InviteForm = Form({ firstName: Text(), lastName: Text(), emailAddress: Text(), phoneNumber: Text(), roleId: Text() });
const RoleForm = Form({ roleId: Text() });
/** The reinvite, close and activate buttons post the token and the form key only. */
const ButtonForm = Form({});
const AuditQuery = Query({ user: Text(), action: Text(), from: Text(), to: Text(), limit: Text(), after: Text() });

// The API's own limits and formats (users/schemas.ts, http/schemas.ts), checked here first so that
// each field gets its own message; the service checks again.
const EMAIL_SCHEMA = Email();
const EMAIL_MAX = EMAIL_SCHEMA.maxLength ?? 120;
const EMAIL_PATTERN = new RegExp(EMAIL_SCHEMA.pattern ?? '^\\S+@\\S+$', 'u');
const NAME_PATTERN = new RegExp(PersonName('').pattern ?? '', 'u');
const PHONE_PATTERN = new RegExp(PhoneNumber.pattern ?? '', 'u');

/** Characters as the API counts them (code points). */
const length = (text: string) => [...text].length;

async function roleOptions(deps: Deps): Promise<RoleOption[]> {
  return (await listRoles(deps.db)).map((r) => ({ code: r.role_code, name: r.role_name }));
}

function userNotFound(userId: string): AppError {
  return new AppError('notFound', 'detail.userNotFound', { userId: userId.slice(0, 40) });
}

/** A person's name as the API takes it (PersonName): the message of what is wrong, if anything. */
function nameProblem(lang: Lang, value: string, missing: TextKey): string | undefined {
  if (value === '') return ct(lang, missing);
  if (length(value) > NAME_MAX_LENGTH) return ct(lang, 'team.error.nameTooLong', { max: NAME_MAX_LENGTH });
  if (!NAME_PATTERN.test(value)) return ct(lang, 'team.error.nameInvalid');
  return undefined;
}

function emailProblem(lang: Lang, value: string): string | undefined {
  if (value === '') return ct(lang, 'team.error.emailMissing');
  if (length(value) > EMAIL_MAX) return ct(lang, 'team.error.emailTooLong', { max: EMAIL_MAX });
  if (!EMAIL_PATTERN.test(value)) return ct(lang, 'team.error.emailInvalid');
  if (actorProblem(value)) return ct(lang, 'team.error.emailUnsafe');
  return undefined;
}

function roleProblem(lang: Lang, value: string, roles: readonly RoleOption[]): string | undefined {
  if (value === '') return ct(lang, 'team.error.roleMissing');
  if (!roles.some((r) => r.code === value)) return ct(lang, 'team.error.roleUnknown');
  return undefined;
}

/** Spaces and dashes people put in phone numbers (099 123 4567) are not part of it. */
function phoneOf(value: string): string {
  return value.replace(/[\s-]/g, '');
}

/**
 * A refusal as the form shows it: a service's AppError (refusalOf) or the console's own
 * (ConsoleRefusal), with the messages put on the fields the service named where it can be told.
 * undefined for anything else (a bug: the caller rethrows it, a 500).
 */
function refusedForm(err: unknown, lang: Lang, values: Record<string, string>): { status: number; state: FormState } | undefined {
  if (err instanceof ConsoleRefusal) return { status: err.status, state: { values, errors: err.fields, message: Object.keys(err.fields).length ? undefined : err.message } };
  const refusal = refusalOf(err, lang);
  if (!refusal || !(err instanceof AppError)) return undefined;
  if (err.detailKey === 'detail.userEmailExists') {
    return { status: refusal.status, state: { values, errors: { emailAddress: ct(lang, 'team.error.emailTaken', { email: values.emailAddress ?? '' }) } } };
  }
  if (err.fieldErrors.some((e) => e.key === 'field.roleUnknown')) return { status: refusal.status, state: { values, errors: { roleId: ct(lang, 'team.error.roleUnknown') } } };
  return { status: refusal.status, state: { values, errors: {}, message: refusal.message } };
}

/** The console's own guard: the API acts for a merchant with a key, the console for a person. */
function refuseSelf(context: ConsoleContext, userId: string, message: TextKey): void {
  // An administrator who closes or demotes themselves locks themselves out, and the last one
  // would leave the merchant without anyone to manage its team: the users service has no such
  // rule (the API's caller is a key, not a user), so the console refuses it for the signed-in
  // user. With it, every console action leaves at least its actor as an active administrator.
  if (userId.toLowerCase() === context.user.userId.toLowerCase()) throw new ConsoleRefusal(403, ct(context.lang, message));
}

// ---------------------------------------------------------------------------------------------
// The team

function teamList(scope: App, deps: Deps): void {
  scope.get(at(TEAM_PATH), { config }, async (request, reply) => {
    const context = consoleContext(request);
    const members = await teamMembers(deps.db, context.user.merchantAccountNumber, deps.clock.now());
    const more = members.length > TEAM_MAX_USERS;
    return sendHtml(reply, context, 200, page(TeamPage({ context, members: members.slice(0, TEAM_MAX_USERS), more, maxUsers: TEAM_MAX_USERS, notice: noticeOf(request, context.lang) })));
  });
}

// ---------------------------------------------------------------------------------------------
// Invite

async function sendInvitePage(deps: Deps, reply: FastifyReply, context: ConsoleContext, status: number, state: FormState): Promise<FastifyReply> {
  return sendHtml(
    reply,
    context,
    status,
    page(InvitePage({ context, roles: await roleOptions(deps), state, invitationHours: deps.config.invitationHours, nameMax: NAME_MAX_LENGTH, emailMax: EMAIL_MAX })),
  );
}

/** The invitation's fields as the form sent them (shown back as typed when refused). */
type InviteValues = Record<'firstName' | 'lastName' | 'emailAddress' | 'phoneNumber' | 'roleId', string>;

/**
 * The invitation as the service takes it (names and address trimmed, the phone number without its
 * spaces and dashes), or the message of each field that is not.
 */
function checkInvitation(lang: Lang, values: InviteValues, roles: readonly RoleOption[]): { input: InviteValues } | { errors: Record<string, string> } {
  const input: InviteValues = {
    firstName: values.firstName.trim(),
    lastName: values.lastName.trim(),
    emailAddress: values.emailAddress.trim(),
    phoneNumber: phoneOf(values.phoneNumber),
    roleId: values.roleId,
  };
  const errors: Record<string, string> = {};
  const problems: Array<[string, string | undefined]> = [
    ['firstName', nameProblem(lang, input.firstName, 'team.error.firstNameMissing')],
    ['lastName', nameProblem(lang, input.lastName, 'team.error.lastNameMissing')],
    ['emailAddress', emailProblem(lang, input.emailAddress)],
    ['phoneNumber', input.phoneNumber === '' ? ct(lang, 'team.error.phoneMissing') : PHONE_PATTERN.test(input.phoneNumber) ? undefined : ct(lang, 'team.error.phoneInvalid')],
    ['roleId', roleProblem(lang, input.roleId, roles)],
  ];
  for (const [name, message] of problems) if (message) errors[name] = message;
  return Object.keys(errors).length > 0 ? { errors } : { input };
}

/** Adds the user and sends their invitation (runAction: once per form key); where to go next. */
async function sendInvitation(deps: Deps, request: FastifyRequest, context: ConsoleContext, input: InviteValues): Promise<string> {
  const { user } = context;
  const result = await runAction(deps, request, context, {
    action: 'user.invite',
    run: async (tx) => {
      const organisationId = await organisationOf(tx, user.merchantAccountNumber);
      const userId = await addUser(deps, { organisationId, merchantAccountNumber: user.merchantAccountNumber, ...input, capturedBy: user.emailAddress }, publicBaseUrl(deps.config, request), tx);
      return { outcome: { location: withNotice(userPath(userId), mailNotice(deps.config, 'notice.team.invited')) }, detail: { userId, emailAddress: input.emailAddress, role: input.roleId } };
    },
  });
  return result.outcome.location;
}

function invite(scope: App, deps: Deps): void {
  scope.get(at(INVITE_PATH), { config }, async (request, reply) => sendInvitePage(deps, reply, consoleContext(request), 200, EMPTY_FORM));

  scope.post(at(INVITE_PATH), { schema: { body: InviteForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const { body } = request;
    const values: InviteValues = {
      firstName: body.firstName ?? '',
      lastName: body.lastName ?? '',
      emailAddress: body.emailAddress ?? '',
      phoneNumber: body.phoneNumber ?? '',
      roleId: body.roleId ?? '',
    };
    const checked = checkInvitation(context.lang, values, await roleOptions(deps));
    if ('errors' in checked) return sendInvitePage(deps, reply, context, 400, { values, errors: checked.errors });
    try {
      return redirect(request, reply, await sendInvitation(deps, request, context, checked.input));
    } catch (err) {
      const refused = refusedForm(err, context.lang, values);
      if (!refused) throw err;
      return sendInvitePage(deps, reply, context, refused.status, refused.state);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// One user

/** The user's page, or the 404 page (the scope's error handler) for a user who is not this merchant's. */
async function sendUserPage(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  context: ConsoleContext,
  shown: { userId: string; status: number; refused?: { form: UserVerb; state: FormState } },
): Promise<FastifyReply> {
  const member = await teamMember(deps.db, context.user.merchantAccountNumber, shown.userId, deps.clock.now());
  if (!member) throw userNotFound(shown.userId);
  const notice = shown.refused ? undefined : noticeOf(request, context.lang);
  // A held invitation's notice links to the outbox that holds it (for whom may read it).
  const noticeLink = notice ? heldMailLink(request, context) : undefined;
  return sendHtml(reply, context, shown.status, page(UserPage({ context, user: member, roles: await roleOptions(deps), notice, noticeLink, refused: shown.refused })));
}

function userPage(scope: App, deps: Deps): void {
  scope.get(`${at(TEAM_PATH)}/users/:userId`, { schema: { params: UserParams }, config }, async (request, reply) =>
    sendUserPage(deps, request, reply, consoleContext(request), { userId: request.params.userId, status: 200 }),
  );
}

/** What one of a user's forms does, in runAction: where to go next. `userId` is in lower case. */
type UserAct = (context: ConsoleContext, userId: string) => Promise<string>;

/**
 * A POST of one user's page: refused with the 404 page for another merchant's user (before any
 * form check), else `act`; a refusal re-renders the page with its message and the form's `values`.
 */
async function userAction(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  form: { verb: UserVerb; userId: string; values?: Record<string, string> },
  act: UserAct,
): Promise<FastifyReply> {
  const context = consoleContext(request);
  const { verb, userId, values = {} } = form;
  if (!(await teamMember(deps.db, context.user.merchantAccountNumber, userId, deps.clock.now()))) throw userNotFound(userId);
  try {
    return redirect(request, reply, await act(context, userId.toLowerCase()));
  } catch (err) {
    const refused = refusedForm(err, context.lang, values);
    // A user gone in between (they are never deleted: a bug) is not a form's refusal.
    if (!refused || refused.status === 404) throw err;
    return sendUserPage(deps, request, reply, context, { userId, status: refused.status, refused: { form: verb, state: refused.state } });
  }
}

/** The user, locked until the action's transaction ends (the service locks it again: the same transaction). */
async function lockedUser(tx: pg.PoolClient, merchantAccountNumber: number, userId: string) {
  const found = await findUser(tx, merchantAccountNumber, userId, { lock: 'for update' });
  if (!found) throw userNotFound(userId);
  return found;
}

function changeRole(scope: App, deps: Deps): void {
  scope.post(at(userActionPath(':userId', 'role')), { schema: { params: UserParams, body: RoleForm }, config }, async (request, reply) => {
    const roleId = request.body.roleId ?? '';
    return userAction(deps, request, reply, { verb: 'role', userId: request.params.userId, values: { roleId } }, async (context, userId) => {
      refuseSelf(context, userId, 'team.error.selfRole');
      const problem = roleProblem(context.lang, roleId, await roleOptions(deps));
      if (problem) throw new ConsoleRefusal(400, problem, { roleId: problem });
      const result = await runAction(deps, request, context, {
        action: 'user.change_role',
        run: async (tx) => {
          const merchant = context.user.merchantAccountNumber;
          const before = await lockedUser(tx, merchant, userId);
          // The update API takes the whole user: everything but the role stays as it is.
          await updateMerchantUser(
            deps,
            { merchantAccountNumber: merchant, userId, firstName: before.first_name, lastName: before.last_name, phoneNumber: before.phone_number, roleId, modifiedBy: context.user.emailAddress },
            tx,
          );
          return {
            outcome: { location: withNotice(userPath(userId), 'notice.team.roleChanged') },
            detail: { userId, emailAddress: before.email_address, fromRole: before.role_code, toRole: roleId },
          };
        },
      });
      return result.outcome.location;
    });
  });
}

function reinvite(scope: App, deps: Deps): void {
  scope.post(at(userActionPath(':userId', 'reinvite')), { schema: { params: UserParams, body: ButtonForm }, config }, async (request, reply) =>
    userAction(deps, request, reply, { verb: 'reinvite', userId: request.params.userId }, async (context, userId) => {
      const result = await runAction(deps, request, context, {
        action: 'user.reinvite',
        run: async (tx) => {
          const emailAddress = await reinviteMerchantUser(deps, context.user.merchantAccountNumber, userId, publicBaseUrl(deps.config, request), tx);
          return { outcome: { location: withNotice(userPath(userId), mailNotice(deps.config, 'notice.team.reinvited')) }, detail: { userId, emailAddress } };
        },
      });
      return result.outcome.location;
    }),
  );
}

function closeUser(scope: App, deps: Deps): void {
  scope.post(at(userActionPath(':userId', 'close')), { schema: { params: UserParams, body: ButtonForm }, config }, async (request, reply) =>
    userAction(deps, request, reply, { verb: 'close', userId: request.params.userId }, async (context, userId) => {
      refuseSelf(context, userId, 'team.error.selfClose');
      const result = await runAction(deps, request, context, {
        action: 'user.close',
        run: async (tx) => {
          const merchant = context.user.merchantAccountNumber;
          const target = await lockedUser(tx, merchant, userId);
          // Also revokes their invitations and deletes their console sessions, in this transaction:
          // their next request goes to the sign-in page.
          await closeMerchantUser(deps, merchant, userId, { changedBy: context.user.emailAddress }, tx);
          return { outcome: { location: withNotice(userPath(userId), 'notice.team.closed') }, detail: { userId, emailAddress: target.email_address } };
        },
      });
      return result.outcome.location;
    }),
  );
}

function activateUser(scope: App, deps: Deps): void {
  scope.post(at(userActionPath(':userId', 'activate')), { schema: { params: UserParams, body: ButtonForm }, config }, async (request, reply) =>
    userAction(deps, request, reply, { verb: 'activate', userId: request.params.userId }, async (context, userId) => {
      const result = await runAction(deps, request, context, {
        action: 'user.activate',
        run: async (tx) => {
          const merchant = context.user.merchantAccountNumber;
          const target = await lockedUser(tx, merchant, userId);
          await activateMerchantUser(deps, merchant, userId, { changedBy: context.user.emailAddress }, tx);
          return { outcome: { location: withNotice(userPath(userId), 'notice.team.activated') }, detail: { userId, emailAddress: target.email_address } };
        },
      });
      return result.outcome.location;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// The audit log

/** The data function's field names → the form's, with their labels (for a refused filter's message). */
const AUDIT_FIELDS = {
  userId: { name: 'user', label: 'team.filterUser' },
  action: { name: 'action', label: 'team.filterAction' },
  fromDate: { name: 'from', label: 'filter.from' },
  toDate: { name: 'to', label: 'filter.to' },
  limit: { name: 'limit', label: 'filter.limit' },
} as const;

/** The filters as the query string gave them, trimmed ('' when absent): shown back as sent. */
function auditFilterValues(query: Static<typeof AuditQuery>): AuditFilterValues {
  const value = (name: keyof AuditFilterValues) => (query[name] ?? '').trim();
  return { user: value('user'), action: value('action'), from: value('from'), to: value('to'), limit: value('limit') };
}

/** A page of the log, or the problem of a refused filter (AppError 'validation', 400: shown back with its message). */
async function auditResult(deps: Deps, context: ConsoleContext, values: AuditFilterValues, after: string): Promise<Parameters<typeof AuditResults>[0]['result']> {
  try {
    const found = await listAuditEntries(deps.db, context.user.merchantAccountNumber, {
      userId: values.user || undefined,
      action: values.action || undefined,
      fromDate: values.from || undefined,
      toDate: values.to || undefined,
      after: after || undefined,
      limit: values.limit === '' ? undefined : Number(values.limit),
    });
    return { page: found };
  } catch (err) {
    // Anything but a refused filter is rethrown.
    return { problem: filterProblem({ lang: context.lang, ct }, err, AUDIT_FIELDS, { ...values }) };
  }
}

function auditLog(scope: App, deps: Deps): void {
  scope.get(at(AUDIT_PATH), { schema: { querystring: AuditQuery }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const values = auditFilterValues(request.query);
    const after = request.query.after ?? '';
    const result = await auditResult(deps, context, values, after);
    if (wantsRegion(request, AUDIT_REGION)) return sendRegion(reply, context, AuditResults({ lang: context.lang, values, after, result, swapped: true }));
    const users = await userChoices(deps.db, context.user.merchantAccountNumber);
    return sendListPage(reply, context, 'problem' in result ? 400 : 200, AuditPage({ context, values, after, users, result }));
  });
}

const route: RouteModule = (scope, { deps }) => {
  teamList(scope, deps);
  invite(scope, deps);
  userPage(scope, deps);
  changeRole(scope, deps);
  reinvite(scope, deps);
  closeUser(scope, deps);
  activateUser(scope, deps);
  auditLog(scope, deps);
};
export default route;
