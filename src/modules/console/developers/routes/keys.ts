// GET  /console/developers — the section's overview.
// GET  /console/developers/api-keys — the merchant's API keys and the form that generates one.
// POST /console/developers/api-keys/generate — a new key pair (api-keys service: generate + add, the
//      API's E1 and add), answered with the page that shows its secret this once. The secret is in
//      no address, audit entry, stored outcome or log: a resubmitted form (same form key) is sent to
//      the list with a notice instead, since nothing can show the secret again.
// POST /console/developers/api-keys/:clientId/{activate,deactivate,delete} — the API's E-routes'
//      service calls, in the action's transaction; the key-status cache is invalidated after the
//      commit, so the key's tokens stop (or work again) at once on this process.
// Another merchant's key, a deleted one or an unknown id: the console's 404 page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../http/errors.ts';
import { formField } from '../../../../http/html.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { findApiKey, findApiKeyById } from '../../../api-keys/repository.ts';
import { add, generate, remove, setStatus } from '../../../api-keys/service.ts';
import { ConsoleRefusal, noticeOf, runAction, withNotice } from '../../kit/actions.tsx';
import { developersSummary, findKey, listKeys, organisationOf } from '../queries.ts';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { ApiKeysPage, NewKeyPage, type NewKey } from '../pages/api-keys.tsx';
import { API_KEY_GENERATE_PATH, API_KEYS_PATH, DEVELOPERS_PATH, emptyForm, OverviewPage, type FormState } from '../pages/developers.tsx';
import { at } from '../../kit/at.ts';
import { DAY_MS, dayOf, DEVELOPERS_CONFIG as config, failedForm, failureOf, fieldRefusal, idParam, parseDay } from '../shared.ts';

const keyNotFound = (id: number | string) => new AppError('notFound', 'detail.apiKeyNotFound', { clientKey: String(id).slice(0, 20) });

/**
 * The expiry typed in the form: a day (UTC) the key works through, so it stops at the start of the
 * next; empty for none. Refused: not a day, or a day already over.
 */
function expiryOf(context: ConsoleContext, typed: string, now: Date): Date | undefined {
  if (typed === '') return undefined;
  const day = parseDay(typed);
  if (!day) throw fieldRefusal(context.lang, { expiry: ct(context.lang, 'developers.generate.expiryInvalid') });
  if (typed < dayOf(now)) throw fieldRefusal(context.lang, { expiry: ct(context.lang, 'developers.generate.expiryPast', { day: typed }) });
  return new Date(day.getTime() + DAY_MS);
}

const route: RouteModule = (scope, { deps, keyStatus }) => {
  async function renderKeys(reply: FastifyReply, context: ConsoleContext, status: number, extra: { form?: FormState; notice?: string; error?: string }) {
    const m = context.user.merchantAccountNumber;
    const [keys, organisationId] = await Promise.all([listKeys(deps.db, m), organisationOf(deps.db, m)]);
    return sendHtml(reply, context, status, page(ApiKeysPage({ context, keys, organisationId, now: deps.clock.now(), form: extra.form ?? emptyForm(), notice: extra.notice, error: extra.error })));
  }

  scope.get(at(DEVELOPERS_PATH), { schema: { hide: true }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const summary = await developersSummary(deps.db, context.user.merchantAccountNumber);
    return sendHtml(reply, context, 200, page(OverviewPage({ context, summary })));
  });

  scope.get(at(API_KEYS_PATH), { schema: { hide: true }, config }, async (request, reply) => {
    const context = consoleContext(request);
    return renderKeys(reply, context, 200, { notice: noticeOf(request, context.lang) });
  });

  scope.post(at(API_KEY_GENERATE_PATH), { schema: { hide: true }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const values = { expiry: (formField(request.body, 'expiry') ?? '').trim().slice(0, 20) };
    // Set by the action when it ran (not on a replay); the secret lives only here and in the answer.
    let created: NewKey | undefined;
    try {
      const expiryDate = expiryOf(context, values.expiry, deps.clock.now());
      const organisationId = await organisationOf(deps.db, m);
      const result = await runAction(deps, request, context, {
        action: 'api_key.generate',
        run: async (tx) => {
          const pair = generate();
          await add(deps, { merchantAccountNumber: m, organisationId, clientKey: pair.key, clientSecret: pair.secret, capturedBy: context.user.emailAddress, expiryDate: expiryDate?.toISOString() }, tx);
          const row = await findApiKey(tx, m, pair.key);
          if (!row) throw new Error('the key just added is not there');
          created = { clientId: row.client_id, clientKey: pair.key, secret: pair.secret, expiryDate: expiryDate ?? null };
          return {
            // Only for a resubmission of this form: the secret was shown in answer to the first.
            outcome: { location: withNotice(API_KEYS_PATH, 'notice.developers.keyGeneratedEarlier') },
            detail: { clientId: row.client_id, clientKey: pair.key, expiryDate: expiryDate?.toISOString() ?? null },
          };
        },
      });
      if (result.kind === 'replayed' || !created) return redirect(request, reply, result.outcome.location);
      return sendHtml(reply, context, 200, page(NewKeyPage({ context, created, organisationId })));
    } catch (err) {
      const failure = failureOf(err, context.lang, (key) => (key === 'detail.expiryInPast' ? 'expiry' : undefined));
      return renderKeys(reply, context, failure.status, { form: failedForm(values, failure) });
    }
  });

  const keyActions: Array<{ verb: 'activate' | 'deactivate' | 'delete'; notice: Extract<TextKey, `notice.${string}`> }> = [
    { verb: 'activate', notice: 'notice.developers.keyActivated' },
    { verb: 'deactivate', notice: 'notice.developers.keyDeactivated' },
    { verb: 'delete', notice: 'notice.developers.keyDeleted' },
  ];
  for (const { verb, notice } of keyActions) {
    scope.post(`${at(API_KEYS_PATH)}/:clientId/${verb}`, { schema: { hide: true }, config }, async (request: FastifyRequest, reply) => {
      const context = consoleContext(request);
      const m = context.user.merchantAccountNumber;
      const clientId = idParam(request, 'clientId', () => keyNotFound('?'));
      const key = await findKey(deps.db, m, clientId);
      if (!key) throw keyNotFound(clientId);
      try {
        const result = await runAction(deps, request, context, {
          action: `api_key.${verb}`,
          run: async (tx) => {
            // The key as it is now (a page shown before another change may be stale).
            const current = await findApiKeyById(tx, m, clientId);
            if (!current) throw keyNotFound(clientId);
            if (verb === 'delete') {
              await remove(deps, keyStatus, m, current.client_key, context.user.emailAddress, tx);
            } else {
              const status = verb === 'activate' ? 'A' : 'I';
              if (current.status_code === status) {
                throw new ConsoleRefusal(409, ct(context.lang, status === 'A' ? 'developers.key.alreadyActive' : 'developers.key.alreadyInactive', { key: current.client_key }));
              }
              await setStatus(deps, keyStatus, m, current.client_key, status, context.user.emailAddress, tx);
            }
            return { outcome: { location: withNotice(API_KEYS_PATH, notice) }, detail: { clientId, clientKey: current.client_key } };
          },
        });
        // After the commit: a token check between the service's invalidation and the commit may have cached the old status.
        keyStatus.invalidate(clientId);
        return redirect(request, reply, result.outcome.location);
      } catch (err) {
        const failure = failureOf(err, context.lang);
        return renderKeys(reply, context, failure.status, { error: failure.message });
      }
    });
  }
};
export default route;
