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
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { publicBaseUrl } from '../../../../http/base-url.ts';
import { AppError } from '../../../../http/errors.ts';
import { formField } from '../../../../http/html.ts';
import type { Lang } from '../../../../http/i18n.ts';
import { Email } from '../../../../http/schemas.ts';
import type { Deps, RouteModule } from '../../../../http/types.ts';
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
import { AUDIT_FILTER_NAMES, AUDIT_REGION, AuditPage, AuditResults, type AuditFilterValues } from '../pages/audit-log.tsx';
import { filterProblem } from '../../kit/display.tsx';
import { AUDIT_PATH, INVITE_PATH, InvitePage, TEAM_PATH, TeamPage, userActionPath, UserPage, userPath, type RoleOption, type UserVerb } from '../pages/team.tsx';
import { at } from '../../kit/at.ts';
import { sendListPage, sendRegion, wantsRegion } from '../../kit/regions.ts';

const config = { consoleAccess: 'user', consoleSection: 'team' } as const;

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

function field(body: unknown, name: string): string {
  return formField(body, name) ?? '';
}

function userIdParam(request: FastifyRequest): string {
  return String((request.params as { userId: string }).userId);
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

const route: RouteModule = (scope, { deps }) => {
  // ---------------------------------------------------------------------------------------------
  // The team

  scope.get(at(TEAM_PATH), { schema: { hide: true }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const members = await teamMembers(deps.db, context.user.merchantAccountNumber, deps.clock.now());
    const more = members.length > TEAM_MAX_USERS;
    return sendHtml(reply, context, 200, page(TeamPage({ context, members: members.slice(0, TEAM_MAX_USERS), more, maxUsers: TEAM_MAX_USERS, notice: noticeOf(request, context.lang) })));
  });

  // ---------------------------------------------------------------------------------------------
  // Invite

  const sendInvitePage = async (reply: FastifyReply, context: ConsoleContext, status: number, state: FormState) =>
    sendHtml(
      reply,
      context,
      status,
      page(InvitePage({ context, roles: await roleOptions(deps), state, invitationHours: deps.config.invitationHours, nameMax: NAME_MAX_LENGTH, emailMax: EMAIL_MAX })),
    );

  scope.get(at(INVITE_PATH), { schema: { hide: true }, config }, async (request, reply) => sendInvitePage(reply, consoleContext(request), 200, EMPTY_FORM));

  scope.post(at(INVITE_PATH), { schema: { hide: true }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const { lang, user } = context;
    const values = {
      firstName: field(request.body, 'firstName'),
      lastName: field(request.body, 'lastName'),
      emailAddress: field(request.body, 'emailAddress'),
      phoneNumber: field(request.body, 'phoneNumber'),
      roleId: field(request.body, 'roleId'),
    };
    const firstName = values.firstName.trim();
    const lastName = values.lastName.trim();
    const emailAddress = values.emailAddress.trim();
    const phoneNumber = phoneOf(values.phoneNumber);
    const roles = await roleOptions(deps);
    const errors: Record<string, string> = {};
    const problems: Array<[string, string | undefined]> = [
      ['firstName', nameProblem(lang, firstName, 'team.error.firstNameMissing')],
      ['lastName', nameProblem(lang, lastName, 'team.error.lastNameMissing')],
      ['emailAddress', emailProblem(lang, emailAddress)],
      ['phoneNumber', phoneNumber === '' ? ct(lang, 'team.error.phoneMissing') : PHONE_PATTERN.test(phoneNumber) ? undefined : ct(lang, 'team.error.phoneInvalid')],
      ['roleId', roleProblem(lang, values.roleId, roles)],
    ];
    for (const [name, message] of problems) if (message) errors[name] = message;
    if (Object.keys(errors).length > 0) return sendInvitePage(reply, context, 400, { values, errors });
    try {
      const result = await runAction(deps, request, context, {
        action: 'user.invite',
        run: async (tx) => {
          const organisationId = await organisationOf(tx, user.merchantAccountNumber);
          const userId = await addUser(
            deps,
            { organisationId, merchantAccountNumber: user.merchantAccountNumber, firstName, lastName, emailAddress, phoneNumber, roleId: values.roleId, capturedBy: user.emailAddress },
            publicBaseUrl(deps.config, request),
            tx,
          );
          return { outcome: { location: withNotice(userPath(userId), 'notice.team.invited') }, detail: { userId, emailAddress, role: values.roleId } };
        },
      });
      return redirect(request, reply, result.outcome.location);
    } catch (err) {
      const refused = refusedForm(err, lang, values);
      if (!refused) throw err;
      return sendInvitePage(reply, context, refused.status, refused.state);
    }
  });

  // ---------------------------------------------------------------------------------------------
  // One user

  /** The user's page, or the 404 page (the scope's error handler) for a user who is not this merchant's. */
  const sendUserPage = async (request: FastifyRequest, reply: FastifyReply, context: ConsoleContext, status: number, refused?: { form: UserVerb; state: FormState }) => {
    const userId = userIdParam(request);
    const member = await teamMember(deps.db, context.user.merchantAccountNumber, userId, deps.clock.now());
    if (!member) throw userNotFound(userId);
    const notice = refused ? undefined : noticeOf(request, context.lang);
    return sendHtml(reply, context, status, page(UserPage({ context, user: member, roles: await roleOptions(deps), notice, refused })));
  };

  scope.get(`${at(TEAM_PATH)}/users/:userId`, { schema: { hide: true }, config }, async (request, reply) => sendUserPage(request, reply, consoleContext(request), 200));

  /**
   * A POST of one user's page: refused with the 404 page for another merchant's user (before any
   * form check), else `act` in runAction; a refusal re-renders the page with its message.
   */
  const userAction = (verb: UserVerb, act: (request: FastifyRequest, context: ConsoleContext, userId: string, values: Record<string, string>) => Promise<string>, values: (body: unknown) => Record<string, string> = () => ({})) => {
    scope.post(at(userActionPath(':userId', verb)), { schema: { hide: true }, config }, async (request, reply) => {
      const context = consoleContext(request);
      const userId = userIdParam(request);
      if (!(await teamMember(deps.db, context.user.merchantAccountNumber, userId, deps.clock.now()))) throw userNotFound(userId);
      const given = values(request.body);
      try {
        return redirect(request, reply, await act(request, context, userId.toLowerCase(), given));
      } catch (err) {
        const refused = refusedForm(err, context.lang, given);
        // A user gone in between (they are never deleted: a bug) is not a form's refusal.
        if (!refused || refused.status === 404) throw err;
        return sendUserPage(request, reply, context, refused.status, { form: verb, state: refused.state });
      }
    });
  };

  /** The user, locked until the action's transaction ends (the service locks it again: the same transaction). */
  async function lockedUser(tx: pg.PoolClient, merchantAccountNumber: number, userId: string) {
    const found = await findUser(tx, merchantAccountNumber, userId, { lock: 'for update' });
    if (!found) throw userNotFound(userId);
    return found;
  }

  userAction(
    'role',
    async (request, context, userId, values) => {
      refuseSelf(context, userId, 'team.error.selfRole');
      const roles = await roleOptions(deps);
      const problem = roleProblem(context.lang, values.roleId, roles);
      if (problem) throw new ConsoleRefusal(400, problem, { roleId: problem });
      const result = await runAction(deps, request, context, {
        action: 'user.change_role',
        run: async (tx) => {
          const merchant = context.user.merchantAccountNumber;
          const before = await lockedUser(tx, merchant, userId);
          // The update API takes the whole user: everything but the role stays as it is.
          await updateMerchantUser(
            deps,
            { merchantAccountNumber: merchant, userId, firstName: before.first_name, lastName: before.last_name, phoneNumber: before.phone_number, roleId: values.roleId, modifiedBy: context.user.emailAddress },
            tx,
          );
          return {
            outcome: { location: withNotice(userPath(userId), 'notice.team.roleChanged') },
            detail: { userId, emailAddress: before.email_address, fromRole: before.role_code, toRole: values.roleId },
          };
        },
      });
      return result.outcome.location;
    },
    (body) => ({ roleId: field(body, 'roleId') }),
  );

  userAction('reinvite', async (request, context, userId) => {
    const result = await runAction(deps, request, context, {
      action: 'user.reinvite',
      run: async (tx) => {
        const emailAddress = await reinviteMerchantUser(deps, context.user.merchantAccountNumber, userId, publicBaseUrl(deps.config, request), tx);
        return { outcome: { location: withNotice(userPath(userId), 'notice.team.reinvited') }, detail: { userId, emailAddress } };
      },
    });
    return result.outcome.location;
  });

  userAction('close', async (request, context, userId) => {
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
  });

  userAction('activate', async (request, context, userId) => {
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
  });

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

  scope.get(at(AUDIT_PATH), { schema: { hide: true }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const merchant = context.user.merchantAccountNumber;
    const values = Object.fromEntries(AUDIT_FILTER_NAMES.map((name) => [name, (formField(request.query, name) ?? '').trim()])) as unknown as AuditFilterValues;
    const after = formField(request.query, 'after') ?? '';
    let result: Parameters<typeof AuditResults>[0]['result'];
    try {
      const found = await listAuditEntries(deps.db, merchant, {
        userId: values.user || undefined,
        action: values.action || undefined,
        fromDate: values.from || undefined,
        toDate: values.to || undefined,
        after: after || undefined,
        limit: values.limit === '' ? undefined : Number(values.limit),
      });
      result = { page: found };
    } catch (err) {
      // A refused filter (AppError 'validation', 400) is shown back with its message; anything else is rethrown.
      result = { problem: filterProblem({ lang: context.lang, ct }, err, AUDIT_FIELDS, { ...values }) };
    }
    if (wantsRegion(request, AUDIT_REGION)) return sendRegion(reply, context, AuditResults({ lang: context.lang, values, after, result, swapped: true }));
    const users = await userChoices(deps.db, merchant);
    return sendListPage(reply, context, 'problem' in result ? 400 : 200, AuditPage({ context, values, after, users, result }));
  });
};
export default route;
