// POST /console/sign-out — ends the session (CSRF-checked like every POST), 303 to sign-in.
import { withTransaction } from '../../../../db/pool.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { writeAudit } from '../../kit/audit.ts';
import { consoleContext, cookieHeader, originFromRequest, redirect, sessionOf } from '../../kit/http.ts';
import { SIGN_IN_PATH, SIGN_OUT_PATH } from '../../kit/paths.ts';
import { deleteSession } from '../../kit/session-store.ts';
import { at } from '../../kit/at.ts';
import { Form } from '../../kit/schemas.ts';

/** The sign-out form carries its CSRF token only (the scope checks it: kit/http.ts). */
const SignOutForm = Form({});

const route: RouteModule = (scope, { deps }) => {
  scope.post(at(SIGN_OUT_PATH), { schema: { body: SignOutForm }, config: { consoleAccess: 'user', consoleBeforeTwoFactor: true } }, async (request, reply) => {
    const { user } = consoleContext(request);
    const session = sessionOf(request)!;
    await withTransaction(deps.db, async (tx) => {
      await deleteSession(tx, session.merchantAccountNumber, session.hash);
      await writeAudit(tx, deps.clock.now(), originFromRequest(request), [{ merchantAccountNumber: user.merchantAccountNumber, userId: user.userId, action: 'sign_out' }]);
    });
    reply.header('set-cookie', cookieHeader(deps, 'session', '', 0));
    return redirect(request, reply, `${SIGN_IN_PATH}?signedOut=1`);
  });
};
export default route;
