// GET /console/sign-in — the form (a signed-in browser goes straight on).
// POST /console/sign-in — e-mail and password (sign-in.ts): a session and 303 to where the person
//   was going; the merchant choice when the password is right for users of several merchants;
//   else the form again with why (the same for an unknown address and a wrong password).
// POST /console/sign-in/choose — the merchant chosen: a session and 303.
// After the right password, a user with an authenticator gets the code page instead of a session:
// POST /console/sign-in/code — a code or a recovery code: a session and 303; else the page again.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicBaseUrl } from '../../../../http/base-url.ts';
import type { App, Deps, RouteModule } from '../../../../http/types.ts';
import { cookieNames, parseSessionCookie } from '../../kit/cookies.ts';
import { cookieHeader, lookUpSession, originFromRequest, pageContext, preSessionOf, redirect, safeNext, sendHtml } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { mailDelivery } from '../../kit/mail.ts';
import { ChooseMerchantPage, SecondFactorPage, SignInPage } from '../pages/sign-in.tsx';
import { SIGN_IN_CHOOSE_PATH, SIGN_IN_CODE_PATH, SIGN_IN_PATH } from '../../kit/paths.ts';
import { deleteSession } from '../../kit/session-store.ts';
import { asksSecondFactor, checkCredentials, checkSecondFactor, choiceTicket, chosenUser, pendingSecondFactor, secondFactorTicket, startSession } from '../sign-in.ts';
import type { TwoFactorUser } from '../two-factor.ts';
import { at } from '../../kit/at.ts';
import { Form, Query, Text } from '../../kit/schemas.ts';

const PUBLIC = { consoleAccess: 'public' } as const;

// What each route reads (kit/schemas.ts): the shape only; the routes bound and check the values.
/** `next` is where to go after signing in; expired, signedOut and reset say why the form is shown again. */
const SignInQuery = Query({ next: Text(), expired: Text(), signedOut: Text(), reset: Text() });
const SignInForm = Form({ email: Text(), password: Text(), next: Text() });
const ChooseForm = Form({ merchant: Text(), ticket: Text(), next: Text() });
const CodeForm = Form({ ticket: Text(), code: Text(), next: Text() });

/** Where a form says to go after signing in, as the page carries it on (only a console path: safeNext). */
function nextOf(nextField: string | undefined): string | undefined {
  return nextField ? safeNext(nextField) : undefined;
}

/**
 * Signs the browser in as `user`: a new session id, the old one (if any) ended, 303 to `next`.
 * `secondFactor`: how they proved it, when they were asked for one.
 */
async function signIn(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  user: TwoFactorUser,
  how: { emailTried: string; next: string; secondFactor?: 'code' | 'recovery' },
): Promise<FastifyReply> {
  const { emailTried, next, secondFactor } = how;
  const previous = parseSessionCookie(request.consoleState?.cookies.get(cookieNames(deps.config.mode).session));
  if (previous) await deleteSession(deps.db, previous.merchantAccountNumber, previous.hash);
  const session = await startSession(deps, user, originFromRequest(request), emailTried, secondFactor);
  reply.header('set-cookie', cookieHeader(deps, 'session', session.cookieValue, deps.config.consoleSessionHours * 3600));
  return redirect(request, reply, next);
}

/** The password was right for `user`: the code page when they have an authenticator, else signed in. */
async function passwordPassed(deps: Deps, request: FastifyRequest, reply: FastifyReply, user: TwoFactorUser, emailTried: string, nextField: string | undefined): Promise<FastifyReply> {
  if (!(await asksSecondFactor(deps, user))) return signIn(deps, request, reply, user, { emailTried, next: safeNext(nextField) });
  const context = pageContext(request);
  const ticket = secondFactorTicket(deps, preSessionOf(request), user, emailTried);
  return sendHtml(reply, context, 200, page(SecondFactorPage({ context, ticket, next: nextOf(nextField) })));
}

function signInPage(scope: App, deps: Deps): void {
  scope.get(at(SIGN_IN_PATH), { schema: { querystring: SignInQuery }, config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    const q = request.query;
    const session = await lookUpSession(deps, request.consoleState?.cookies.get(cookieNames(deps.config.mode).session));
    if (session.kind === 'active') return redirect(request, reply, safeNext(q.next));
    const notice = q.expired ? ct(context.lang, 'signIn.expired') : q.signedOut ? ct(context.lang, 'signIn.signedOut') : q.reset ? ct(context.lang, 'signIn.passwordChanged') : undefined;
    return sendHtml(reply, context, 200, page(SignInPage({ context, next: nextOf(q.next), notice })));
  });
}

function signInForm(scope: App, deps: Deps): void {
  scope.post(at(SIGN_IN_PATH), { schema: { body: SignInForm }, config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    const email = (request.body.email ?? '').slice(0, 254);
    const password = request.body.password ?? '';
    const nextField = request.body.next;
    const result = await checkCredentials(deps, { emailAddress: email, password, origin: originFromRequest(request), baseUrl: publicBaseUrl(deps.config, request) });
    const form = (status: number, error: string) => sendHtml(reply, context, status, page(SignInPage({ context, email, next: nextOf(nextField), error })));
    switch (result.kind) {
      case 'signedIn':
        return passwordPassed(deps, request, reply, result.user, email, nextField);
      case 'choose': {
        const ticket = choiceTicket(deps, preSessionOf(request), result.candidates, email);
        return sendHtml(reply, context, 200, page(ChooseMerchantPage({ context, ticket, candidates: result.candidates, next: nextOf(nextField) })));
      }
      case 'wrong': {
        const wrong = ct(context.lang, 'signIn.wrong');
        if (result.backoffSeconds === undefined) return form(401, wrong);
        reply.header('retry-after', String(result.backoffSeconds));
        return form(401, `${wrong} ${ct(context.lang, 'signIn.backoff', { seconds: result.backoffSeconds })}`);
      }
      case 'backoff':
        reply.header('retry-after', String(result.retryAfterSeconds));
        return form(429, ct(context.lang, 'signIn.backoff', { seconds: result.retryAfterSeconds }));
      case 'locked':
        reply.header('retry-after', String(result.retryAfterSeconds));
        return form(429, ct(context.lang, mailDelivery(deps.config) === 'sent' ? 'signIn.locked' : 'signIn.lockedHeld', { minutes: Math.ceil(result.retryAfterSeconds / 60) }));
    }
  });
}

function chooseMerchant(scope: App, deps: Deps): void {
  scope.post(at(SIGN_IN_CHOOSE_PATH), { schema: { body: ChooseForm }, config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    const merchant = Number(request.body.merchant);
    const ticket = request.body.ticket ?? '';
    const nextField = request.body.next;
    const chosen = Number.isSafeInteger(merchant) ? await chosenUser(deps, preSessionOf(request), ticket, merchant) : undefined;
    if (!chosen || chosen === 'expired') return sendHtml(reply, context, 400, page(SignInPage({ context, next: nextOf(nextField), error: ct(context.lang, 'signIn.chooseExpired') })));
    return passwordPassed(deps, request, reply, { merchantAccountNumber: merchant, userId: chosen.userId }, chosen.emailTried, nextField);
  });
}

function secondFactor(scope: App, deps: Deps): void {
  scope.post(at(SIGN_IN_CODE_PATH), { schema: { body: CodeForm }, config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    const ticket = request.body.ticket ?? '';
    const code = (request.body.code ?? '').slice(0, 64);
    const nextField = request.body.next;
    const next = nextOf(nextField);
    const pending = await pendingSecondFactor(deps, preSessionOf(request), ticket);
    if (!pending || pending === 'expired') return sendHtml(reply, context, 400, page(SignInPage({ context, next, error: ct(context.lang, 'signIn.codeExpired') })));
    const result = await checkSecondFactor(deps, pending, code, originFromRequest(request), publicBaseUrl(deps.config, request));
    // A wrong code keeps the ticket's own expiry: retrying does not lengthen the five minutes.
    const again = (status: number, error: string) =>
      sendHtml(reply, context, status, page(SecondFactorPage({ context, ticket: secondFactorTicket(deps, preSessionOf(request), pending, pending.emailTried, pending.expiresAtMs), next, error })));
    switch (result.kind) {
      case 'passed':
        return signIn(deps, request, reply, pending, { emailTried: pending.emailTried, next: safeNext(nextField), secondFactor: result.method });
      case 'wrong': {
        const wrong = ct(context.lang, 'signIn.codeWrong');
        if (result.backoffSeconds === undefined) return again(401, wrong);
        reply.header('retry-after', String(result.backoffSeconds));
        return again(401, `${wrong} ${ct(context.lang, 'signIn.backoff', { seconds: result.backoffSeconds })}`);
      }
      case 'backoff':
        reply.header('retry-after', String(result.retryAfterSeconds));
        return again(429, ct(context.lang, 'signIn.backoff', { seconds: result.retryAfterSeconds }));
      case 'locked':
        reply.header('retry-after', String(result.retryAfterSeconds));
        return sendHtml(reply, context, 429, page(SignInPage({ context, next, error: ct(context.lang, mailDelivery(deps.config) === 'sent' ? 'signIn.locked' : 'signIn.lockedHeld', { minutes: Math.ceil(result.retryAfterSeconds / 60) }) })));
    }
  });
}

const route: RouteModule = (scope, { deps }) => {
  signInPage(scope, deps);
  signInForm(scope, deps);
  chooseMerchant(scope, deps);
  secondFactor(scope, deps);
};
export default route;
