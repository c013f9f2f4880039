// GET  /console/security — the user's two-factor sign-in: on or off, recovery codes left.
// POST /console/security/two-factor — step 1: a new secret to scan (the enrol page).
// POST /console/security/two-factor/confirm — step 2: a code proves it; the recovery codes, once.
//   The user's other sessions end in the same transaction (they were opened with the password alone).
// POST /console/security/two-factor/remove — with a current code or a recovery code.
// Every user may open these, also one who must set up two-factor sign-in before anything else.
import type { FastifyRequest } from 'fastify';
import { withTransaction } from '../../../../db/pool.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { publicBaseUrl } from '../../../../http/base-url.ts';
import { writeAudit } from '../../kit/audit.ts';
import { noticeOf, runAction, withNotice } from '../../kit/actions.tsx';
import { consoleContext, originFromRequest, redirect, sendHtml, sessionOf, type ConsoleContext } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { mailDelivery } from '../../kit/mail.ts';
import { EnrolPage, RecoveryCodesPage, SecurityPage } from '../pages/security.tsx';
import { PAYOUT_DECISIONS_PATH, SECURITY_PATH, TWO_FACTOR_CONFIRM_PATH, TWO_FACTOR_PATH, TWO_FACTOR_REMOVE_PATH } from '../../kit/paths.ts';
import { maySee, mustUseTwoFactor } from '../../kit/roles.ts';
import { endOtherSessions } from '../../kit/session-store.ts';
import { checkSecondFactor } from '../sign-in.ts';
import { beginEnrolment, confirmEnrolment, pendingEnrolment, removeTwoFactor, twoFactorKey, twoFactorStatus } from '../two-factor.ts';
import { decisionsInConsole as decisionsInConsoleOnly, setDecisionsInConsole } from '../../../users/repository.ts';
import { at } from '../../kit/at.ts';
import { Form, Text } from '../../kit/schemas.ts';

const CONFIG = { consoleAccess: 'user', consoleBeforeTwoFactor: true } as const;
/** A code is 6 digits, a recovery code 11 characters; anything longer is not read. */
const CODE_MAX_LENGTH = 32;

// What each form posts (kit/schemas.ts): the shape only; codeOf bounds the code.
const CodeForm = Form({ code: Text() });
/** The button that begins the enrolment posts its CSRF token only. */
const ButtonForm = Form({});
/** on: 'true' keeps payout decisions in the console; anything else gives them back to the API. */
const DecisionsForm = Form({ on: Text() });

/** What the authenticator app lists the account as: the service, then the address and merchant. */
function issuer(deps: Deps): string {
  return deps.config.mode === 'sandbox' ? 'OneKhusa Sandbox' : 'OneKhusa';
}
function accountLabel(context: ConsoleContext): string {
  return `${context.user.emailAddress} (${context.user.merchantAccountNumber})`;
}

function codeOf(code: string | undefined): string {
  return (code ?? '').slice(0, CODE_MAX_LENGTH);
}

/** The security page, with what just happened. */
async function securityPage(deps: Deps, request: FastifyRequest, status: number, message: { notice?: string; error?: string } = {}) {
  const context = consoleContext(request);
  const twoFactor = await twoFactorStatus(deps.db, context.user);
  const required = mustUseTwoFactor(context.user.roleCode, deps.config.consoleRequireTwoFactor);
  const decisionsInConsole = maySee(context.user.roleCode, 'team', context.sandbox) ? await decisionsInConsoleOnly(deps.db, context.user.merchantAccountNumber) : undefined;
  return { context, html: page(SecurityPage({ context, status: twoFactor, required, decisionsInConsole, notice: noticeOf(request, context.lang), ...message })), status };
}

function securityOverview(scope: App, deps: Deps): void {
  scope.get(at(SECURITY_PATH), { config: CONFIG }, async (request, reply) => {
    const shown = await securityPage(deps, request, 200);
    return sendHtml(reply, shown.context, shown.status, shown.html);
  });
}

/** Setting up two-factor sign-in: a new secret to scan, then a code that proves it (`key` seals the secret). */
function twoFactorSetup(scope: App, deps: Deps, key: Buffer): void {
  scope.post(at(TWO_FACTOR_PATH), { schema: { body: ButtonForm }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const enrolment = await beginEnrolment(deps.db, key, context.user, accountLabel(context), issuer(deps), deps.clock.now());
    if (!enrolment) {
      const shown = await securityPage(deps, request, 409, { error: ct(context.lang, 'security.alreadyOn') });
      return sendHtml(reply, context, shown.status, shown.html);
    }
    return sendHtml(reply, context, 200, page(EnrolPage({ context, enrolment })));
  });

  scope.post(at(TWO_FACTOR_CONFIRM_PATH), { schema: { body: CodeForm }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    const { user } = context;
    const session = sessionOf(request)!;
    const now = deps.clock.now();
    const codes = await confirmEnrolment(deps.db, key, user, codeOf(request.body.code), now, async (tx) => {
      await endOtherSessions(tx, user.merchantAccountNumber, user.userId, session.hash);
      await writeAudit(tx, now, originFromRequest(request), [{ merchantAccountNumber: user.merchantAccountNumber, userId: user.userId, action: 'two_factor_enrolled' }]);
    });
    if (codes) return sendHtml(reply, context, 200, page(RecoveryCodesPage({ context, codes })));
    // Wrong code: the same secret again, so the app already set up keeps working.
    const pending = await pendingEnrolment(deps.db, key, user, accountLabel(context), issuer(deps));
    if (pending) return sendHtml(reply, context, 422, page(EnrolPage({ context, enrolment: pending, error: ct(context.lang, 'security.wrongCode') })));
    const shown = await securityPage(deps, request, 409, { error: ct(context.lang, 'security.noEnrolment') });
    return sendHtml(reply, context, shown.status, shown.html);
  });
}

function twoFactorRemoval(scope: App, deps: Deps): void {
  scope.post(at(TWO_FACTOR_REMOVE_PATH), { schema: { body: CodeForm }, config: CONFIG }, async (request, reply) => {
    const context = consoleContext(request);
    // Throttled and audited as at sign-in: a session alone must not be able to guess its way to turning it off.
    const pending = { merchantAccountNumber: context.user.merchantAccountNumber, userId: context.user.userId, emailTried: context.user.emailAddress, expiresAtMs: 0 };
    const result = await checkSecondFactor(deps, pending, codeOf(request.body.code), originFromRequest(request), publicBaseUrl(deps.config, request));
    if (result.kind !== 'passed') {
      if (result.kind !== 'wrong' || result.backoffSeconds !== undefined) reply.header('retry-after', String(result.kind === 'wrong' ? result.backoffSeconds : result.retryAfterSeconds));
      const why = result.kind === 'wrong' ? ct(context.lang, 'signIn.codeWrong') : result.kind === 'backoff' ? ct(context.lang, 'signIn.backoff', { seconds: result.retryAfterSeconds }) : ct(context.lang, mailDelivery(deps.config) === 'sent' ? 'signIn.locked' : 'signIn.lockedHeld', { minutes: Math.ceil(result.retryAfterSeconds / 60) });
      const shown = await securityPage(deps, request, result.kind === 'wrong' ? 422 : 429, { error: why });
      return sendHtml(reply, context, shown.status, shown.html);
    }
    await withTransaction(deps.db, async (tx) => {
      await removeTwoFactor(tx, context.user);
      await writeAudit(tx, deps.clock.now(), originFromRequest(request), [{ merchantAccountNumber: context.user.merchantAccountNumber, userId: context.user.userId, action: 'two_factor_removed' }]);
    });
    const shown = await securityPage(deps, request, 200, { notice: ct(context.lang, 'security.removed') });
    return sendHtml(reply, context, shown.status, shown.html);
  });
}

// The merchant's payout-decision policy: for those who administer the merchant (the team's
// section), and not before their own second factor where it is required.
function payoutDecisions(scope: App, deps: Deps): void {
  scope.post(at(PAYOUT_DECISIONS_PATH), { schema: { body: DecisionsForm }, config: { consoleAccess: 'user', consoleSection: 'team' } }, async (request, reply) => {
    const context = consoleContext(request);
    const on = request.body.on === 'true';
    const result = await runAction(deps, request, context, {
      action: 'merchant.payout_decisions',
      run: async (tx) => {
        const changed = await setDecisionsInConsole(tx, context.user.merchantAccountNumber, on);
        return { outcome: { location: withNotice(SECURITY_PATH, on ? 'notice.security.decisionsOn' : 'notice.security.decisionsOff') }, detail: { inConsoleOnly: on, changed } };
      },
    });
    return redirect(request, reply, result.outcome.location);
  });
}

const route: RouteModule = (scope, { deps }) => {
  const key = twoFactorKey(deps.jwtSecret);
  securityOverview(scope, deps);
  twoFactorSetup(scope, deps, key);
  twoFactorRemoval(scope, deps);
  payoutDecisions(scope, deps);
};
export default route;
