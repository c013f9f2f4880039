// GET /users/set-password?token=… — the page an invitation e-mail links to (HTML, at the root,
// not under /sandbox/v1, no access token: the unguessable token is the invitee's only key).
// POST /users/set-password — its form (token, password, confirmation): sets the password and
// uses the link up. A link that no longer works (used, revoked, expired, closed user, never
// existed) answers 410 with a page saying so. Errors are pages, not problem+json: a person reads
// them. The token never reaches the logs: the request line is logged without it.
import type { FastifyReply } from 'fastify';
import { formField, pageLanguage, pageScope, sendPage } from '../../../http/html.ts';
import { t, type Lang, type MessageKey } from '../../../http/i18n.ts';
import type { RouteModule } from '../../../http/types.ts';
import { SIGN_IN_PATH } from '../../console/kit/paths.ts';
import { SET_PASSWORD_PATH } from '../invitation.ts';
import { renderSetPasswordForm, renderUserMessage } from '../page.ts';
import { openInvitation, passwordProblem, setPassword } from '../service.ts';

/**
 * The form's three fields at their longest (a 43-character token; 128-character passwords, up to
 * 4 UTF-8 bytes a character, percent-encoded) fit in a few kilobytes; anything bigger is not
 * from the page.
 */
const FORM_BODY_LIMIT_BYTES = 8192;

function sendMessagePage(reply: FastifyReply, status: number, lang: Lang, title: MessageKey, text: MessageKey): FastifyReply {
  return sendPage(reply, status, lang, renderUserMessage(lang, t(lang, title), t(lang, text)));
}

const sendInvalid = (reply: FastifyReply, lang: Lang) => sendMessagePage(reply, 410, lang, 'setPassword.invalidTitle', 'setPassword.invalid');

const route: RouteModule = (app, { deps }) => {
  pageScope(
    app,
    {
      formBodyLimitBytes: FORM_BODY_LIMIT_BYTES,
      failureMessage: 'set-password page failed',
      errorPage: (request, reply, status) => sendMessagePage(reply, status, pageLanguage(request, request.query), 'setPassword.errorTitle', 'setPassword.error'),
    },
    (scope) => {
      scope.get(SET_PASSWORD_PATH, { schema: { hide: true } }, async (request, reply) => {
        const lang = pageLanguage(request, request.query);
        const token = formField(request.query, 'token') ?? '';
        const invitation = await openInvitation(deps, token);
        if (!invitation) return sendInvalid(reply, lang);
        return sendPage(reply, 200, lang, renderSetPasswordForm(lang, { token, invitation }));
      });

      scope.post(SET_PASSWORD_PATH, { schema: { hide: true }, bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const lang = pageLanguage(request, request.body);
        const token = formField(request.body, 'token') ?? '';
        const password = formField(request.body, 'password') ?? '';
        const confirmation = formField(request.body, 'confirmation') ?? '';
        const invitation = await openInvitation(deps, token);
        if (!invitation) return sendInvalid(reply, lang);
        const problem = passwordProblem(password, confirmation);
        if (problem) return sendPage(reply, 400, lang, renderSetPasswordForm(lang, { token, invitation, error: t(lang, problem.key, problem.params) }));
        if (!(await setPassword(deps, token, password))) return sendInvalid(reply, lang);
        const signIn = { href: `${SIGN_IN_PATH}${lang === 'en' ? '' : `?lang=${lang}`}`, text: t(lang, 'setPassword.signIn') };
        return sendPage(reply, 200, lang, renderUserMessage(lang, t(lang, 'setPassword.doneTitle'), t(lang, 'setPassword.done'), signIn));
      });
    },
  );
};
export default route;
