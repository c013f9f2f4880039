// GET/POST /console/forgot-password — the form; its answer is the same whatever the address.
// GET/POST /console/reset-password?m=…&token=… — the page the e-mailed link opens: a new password
//   (the users module's policy), every session of the user ended, 303 to sign-in. A link that no
//   longer works answers 410. The token never reaches the logs.
import { publicBaseUrl } from '../../../../http/base-url.ts';
import { t } from '../../../../http/i18n.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { passwordProblem } from '../../../users/service.ts';
import { originFromRequest, pageContext, redirect, sendHtml } from '../../kit/http.ts';
import { page } from '../../kit/layout.tsx';
import { ForgotPasswordPage, ResetInvalidPage, ResetPasswordPage } from '../pages/password.tsx';
import { mailDelivery } from '../../kit/mail.ts';
import { openReset, requestReset, resetPassword } from '../password-reset.ts';
import { FORGOT_PASSWORD_PATH, RESET_PASSWORD_PATH, SIGN_IN_PATH } from '../../kit/paths.ts';
import { at } from '../../kit/at.ts';
import { Form, Query, Text } from '../../kit/schemas.ts';

const PUBLIC = { consoleAccess: 'public' } as const;

// What each route reads (kit/schemas.ts): the shape only. m is the merchant's account number, as
// the e-mailed link carries it; openReset refuses what is not one of its links (410).
const ForgotForm = Form({ email: Text() });
const ResetQuery = Query({ m: Text(), token: Text() });
const ResetForm = Form({ m: Text(), token: Text(), password: Text(), confirmation: Text() });

const route: RouteModule = (scope, { deps }) => {
  scope.get(at(FORGOT_PASSWORD_PATH), { config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    return sendHtml(reply, context, 200, page(ForgotPasswordPage({ context })));
  });

  scope.post(at(FORGOT_PASSWORD_PATH), { schema: { body: ForgotForm }, config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    const email = (request.body.email ?? '').trim().slice(0, 254);
    await requestReset(deps, { emailAddress: email, origin: originFromRequest(request), baseUrl: publicBaseUrl(deps.config, request) });
    // The same answer for any address: only whether a mail server is configured changes its words.
    return sendHtml(reply, context, 200, page(ForgotPasswordPage({ context, sentTo: email, delivery: mailDelivery(deps.config) })));
  });

  scope.get(at(RESET_PASSWORD_PATH), { schema: { querystring: ResetQuery }, config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    const merchantAccountNumber = Number(request.query.m);
    const token = request.query.token ?? '';
    const reset = await openReset(deps, merchantAccountNumber, token);
    if (!reset) return sendHtml(reply, context, 410, page(ResetInvalidPage({ context })));
    return sendHtml(reply, context, 200, page(ResetPasswordPage({ context, merchantAccountNumber, token, emailAddress: reset.emailAddress, merchantName: reset.merchantName })));
  });

  scope.post(at(RESET_PASSWORD_PATH), { schema: { body: ResetForm }, config: PUBLIC }, async (request, reply) => {
    const context = pageContext(request);
    const { body } = request;
    const merchantAccountNumber = Number(body.m);
    const token = body.token ?? '';
    const password = body.password ?? '';
    const confirmation = body.confirmation ?? '';
    const reset = await openReset(deps, merchantAccountNumber, token);
    if (!reset) return sendHtml(reply, context, 410, page(ResetInvalidPage({ context })));
    const problem = passwordProblem(password, confirmation);
    if (problem) {
      const error = t(context.lang, problem.key, problem.params);
      return sendHtml(reply, context, 400, page(ResetPasswordPage({ context, merchantAccountNumber, token, emailAddress: reset.emailAddress, merchantName: reset.merchantName, error })));
    }
    if (!(await resetPassword(deps, merchantAccountNumber, token, password, originFromRequest(request)))) return sendHtml(reply, context, 410, page(ResetInvalidPage({ context })));
    return redirect(request, reply, `${SIGN_IN_PATH}?reset=1`);
  });
};
export default route;
