// GET /console/sign-in — the form (a signed-in browser goes straight on).
// POST /console/sign-in — e-mail and password (sign-in.ts): a session and 303 to where the person
//   was going; the merchant choice when the password is right for users of several merchants;
//   else the form again with why (the same for an unknown address and a wrong password).
// POST /console/sign-in/choose — the merchant chosen: a session and 303.
// After the right password, a user with an authenticator gets the code page instead of a session:
// POST /console/sign-in/code — a code or a recovery code: a session and 303; else the page again.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicBaseUrl } from '../../../../http/base-url.ts';
import { formField } from '../../../../http/html.ts';
import type { Deps, RouteModule } from '../../../../http/types.ts';
import { cookieNames, parseSessionCookie } from '../../kit/cookies.ts';
import { cookieHeader, lookUpSession, originFromRequest, pageContext, preSessionOf, redirect, safeNext, sendHtml } from '../../kit/http.ts';
import { ct } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { ChooseMerchantPage, SecondFactorPage, SignInPage } from '../pages/sign-in.tsx';
import { SIGN_IN_CHOOSE_PATH, SIGN_IN_CODE_PATH, SIGN_IN_PATH } from '../../kit/paths.ts';
import { deleteSession } from '../../kit/session-store.ts';
import { asksSecondFactor, checkCredentials, checkSecondFactor, choiceTicket, chosenUser, pendingSecondFactor, secondFactorTicket, startSession } from '../sign-in.ts';
import type { TwoFactorUser } from '../two-factor.ts';
import { at } from '../../kit/at.ts';

/** Signs the browser in as `user`: a new session id, the old one (if any) ended, 303 to `next`. */
async function signIn(deps: Deps, request: FastifyRequest, reply: FastifyReply, user: TwoFactorUser, emailTried: string, next: string, secondFactor?: 'code' | 'recovery'): Promise<FastifyReply> {
  const previous = parseSessionCookie(request.consoleState?.cookies.get(cookieNames(deps.config.mode).session));
  if (previous) await deleteSession(deps.db, previous.merchantAccountNumber, previous.hash);
  const session = await startSession(deps, user, originFromRequest(request), emailTried, secondFactor);
  reply.header('set-cookie', cookieHeader(deps, 'session', session.cookieValue, deps.config.consoleSessionHours * 3600));
  return redirect(request, reply, next);
}

/** The password was right for `user`: the code page when they have an authenticator, else signed in. */
async function passwordPassed(deps: Deps, request: FastifyRequest, reply: FastifyReply, user: TwoFactorUser, emailTried: string, nextField: string | undefined): Promise<FastifyReply> {
  if (!(await asksSecondFactor(deps, user))) return signIn(deps, request, reply, user, emailTried, safeNext(nextField));
  const context = pageContext(request);
  const ticket = secondFactorTicket(deps, preSessionOf(request), user, emailTried);
  return sendHtml(reply, context, 200, page(SecondFactorPage({ context, ticket, next: nextField ? safeNext(nextField) : undefined })));
}

const route: RouteModule = (scope, { deps }) => {
  scope.get(at(SIGN_IN_PATH), { schema: { hide: true }, config: { consoleAccess: 'public' } }, async (request, reply) => {
    const context = pageContext(request);
    const next = formField(request.query, 'next');
    const session = await lookUpSession(deps, request.consoleState?.cookies.get(cookieNames(deps.config.mode).session));
    if (session.kind === 'active') return redirect(request, reply, safeNext(next));
    const q = request.query as Record<string, unknown>;
    const notice = q.expired ? ct(context.lang, 'signIn.expired') : q.signedOut ? ct(context.lang, 'signIn.signedOut') : q.reset ? ct(context.lang, 'signIn.passwordChanged') : undefined;
    return sendHtml(reply, context, 200, page(SignInPage({ context, next: next ? safeNext(next) : undefined, notice })));
  });

  scope.post(at(SIGN_IN_PATH), { schema: { hide: true }, config: { consoleAccess: 'public' } }, async (request, reply) => {
    const context = pageContext(request);
    const email = (formField(request.body, 'email') ?? '').slice(0, 254);
    const password = formField(request.body, 'password') ?? '';
    const nextField = formField(request.body, 'next');
    const next = safeNext(nextField);
    const result = await checkCredentials(deps, { emailAddress: email, password, origin: originFromRequest(request), baseUrl: publicBaseUrl(deps.config, request) });
    const form = (status: number, error: string) => sendHtml(reply, context, status, page(SignInPage({ context, email, next: nextField ? next : undefined, error })));
    switch (result.kind) {
      case 'signedIn':
        return passwordPassed(deps, request, reply, result.user, email, nextField);
      case 'choose': {
        const ticket = choiceTicket(deps, preSessionOf(request), result.candidates, email);
        return sendHtml(reply, context, 200, page(ChooseMerchantPage({ context, ticket, candidates: result.candidates, next: nextField ? next : undefined })));
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
        return form(429, ct(context.lang, 'signIn.locked', { minutes: Math.ceil(result.retryAfterSeconds / 60) }));
    }
  });

  scope.post(at(SIGN_IN_CHOOSE_PATH), { schema: { hide: true }, config: { consoleAccess: 'public' } }, async (request, reply) => {
    const context = pageContext(request);
    const merchant = Number(formField(request.body, 'merchant'));
    const ticket = formField(request.body, 'ticket') ?? '';
    const nextField = formField(request.body, 'next');
    const chosen = Number.isSafeInteger(merchant) ? await chosenUser(deps, preSessionOf(request), ticket, merchant) : undefined;
    if (!chosen || chosen === 'expired') return sendHtml(reply, context, 400, page(SignInPage({ context, next: nextField ? safeNext(nextField) : undefined, error: ct(context.lang, 'signIn.chooseExpired') })));
    return passwordPassed(deps, request, reply, { merchantAccountNumber: merchant, userId: chosen.userId }, chosen.emailTried, nextField);
  });

  scope.post(at(SIGN_IN_CODE_PATH), { schema: { hide: true }, config: { consoleAccess: 'public' } }, async (request, reply) => {
    const context = pageContext(request);
    const ticket = formField(request.body, 'ticket') ?? '';
    const code = (formField(request.body, 'code') ?? '').slice(0, 64);
    const nextField = formField(request.body, 'next');
    const next = nextField ? safeNext(nextField) : undefined;
    const pending = await pendingSecondFactor(deps, preSessionOf(request), ticket);
    if (!pending || pending === 'expired') return sendHtml(reply, context, 400, page(SignInPage({ context, next, error: ct(context.lang, 'signIn.codeExpired') })));
    const result = await checkSecondFactor(deps, pending, code, originFromRequest(request), publicBaseUrl(deps.config, request));
    // A wrong code keeps the ticket's own expiry: retrying does not lengthen the five minutes.
    const again = (status: number, error: string) =>
      sendHtml(reply, context, status, page(SecondFactorPage({ context, ticket: secondFactorTicket(deps, preSessionOf(request), pending, pending.emailTried, pending.expiresAtMs), next, error })));
    switch (result.kind) {
      case 'passed':
        return signIn(deps, request, reply, pending, pending.emailTried, safeNext(nextField), result.method);
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
        return sendHtml(reply, context, 429, page(SignInPage({ context, next, error: ct(context.lang, 'signIn.locked', { minutes: Math.ceil(result.retryAfterSeconds / 60) }) })));
    }
  });
};
export default route;
