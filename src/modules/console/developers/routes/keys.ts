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
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../../../http/errors.ts';
import type { App, Deps, RouteContext, RouteModule } from '../../../../http/types.ts';
import { API_KEY, findApiKey, findApiKeyById } from '../../../api-keys/repository.ts';
import { add, generate, remove, setStatus } from '../../../api-keys/service.ts';
import { ConsoleRefusal, noticeOf, runAction, withNotice } from '../../kit/actions.tsx';
import { developersSummary, findKey, listKeys, organisationOf } from '../queries.ts';
import { consoleContext, redirect, sendHtml, type ConsoleContext } from '../../kit/http.ts';
import { ct, type TextKey } from '../texts.ts';
import { page } from '../../kit/layout.tsx';
import { ApiKeysPage, NewKeyPage, type NewKey } from '../pages/api-keys.tsx';
import { API_KEY_GENERATE_PATH, API_KEYS_PATH, DEVELOPERS_PATH, emptyForm, OverviewPage, type FormState } from '../pages/developers.tsx';
import { at } from '../../kit/at.ts';
import { Form, PathId, pathId, Text } from '../../kit/schemas.ts';
import { DAY_MS, dayOf, DEVELOPERS_CONFIG as config, failedForm, failureOf, fieldRefusal, parseDay } from '../shared.ts';

// What each route reads (kit/schemas.ts): the shape only; the expiry's own checks stay in expiryOf.
const KeyParams = Type.Object({ clientId: PathId });
const GenerateForm = Form({ expiry: Text() });
/** The activate, deactivate and delete buttons post the token and the form key only. */
const ButtonForm = Form({});

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

/** The three buttons of a key, each with its notice once done. */
const KEY_ACTIONS: Array<{ verb: 'activate' | 'deactivate' | 'delete'; notice: Extract<TextKey, `notice.${string}`> }> = [
  { verb: 'activate', notice: 'notice.developers.keyActivated' },
  { verb: 'deactivate', notice: 'notice.developers.keyDeactivated' },
  { verb: 'delete', notice: 'notice.developers.keyDeleted' },
];

async function renderKeys(deps: Deps, reply: FastifyReply, context: ConsoleContext, status: number, extra: { form?: FormState; notice?: string; error?: string }) {
  const m = context.user.merchantAccountNumber;
  const [keys, organisationId] = await Promise.all([listKeys(deps.db, m), organisationOf(deps.db, m)]);
  return sendHtml(reply, context, status, page(ApiKeysPage({ context, keys, organisationId, now: deps.clock.now(), form: extra.form ?? emptyForm(), notice: extra.notice, error: extra.error })));
}

/** GET /developers (the section's overview) and GET /developers/api-keys (the keys and the generate form). */
function overviewAndKeys(scope: App, deps: Deps): void {
  scope.get(at(DEVELOPERS_PATH), { config }, async (request, reply) => {
    const context = consoleContext(request);
    const summary = await developersSummary(deps.db, context.user.merchantAccountNumber);
    return sendHtml(reply, context, 200, page(OverviewPage({ context, summary })));
  });

  scope.get(at(API_KEYS_PATH), { config }, async (request, reply) => {
    const context = consoleContext(request);
    return renderKeys(deps, reply, context, 200, { notice: noticeOf(request, context.lang) });
  });
}

/** POST /developers/api-keys/generate: a new pair, its secret shown in the answer and nowhere else. */
function generateKey(scope: App, deps: Deps): void {
  scope.post(at(API_KEY_GENERATE_PATH), { schema: { body: GenerateForm }, config }, async (request, reply) => {
    const context = consoleContext(request);
    const m = context.user.merchantAccountNumber;
    const values = { expiry: (request.body.expiry ?? '').trim().slice(0, 20) };
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
      return renderKeys(deps, reply, context, failure.status, { form: failedForm(values, failure) });
    }
  });
}

/** POST /developers/api-keys/:clientId/{activate,deactivate,delete}, then the key-status cache invalidated. */
function keyActions(scope: App, { deps, keyStatus }: RouteContext): void {
  for (const { verb, notice } of KEY_ACTIONS) {
    scope.post(`${at(API_KEYS_PATH)}/:clientId/${verb}`, { schema: { params: KeyParams, body: ButtonForm }, config }, async (request, reply) => {
      const context = consoleContext(request);
      const m = context.user.merchantAccountNumber;
      const clientId = pathId(request.params.clientId, () => keyNotFound('?'));
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
              const status = verb === 'activate' ? API_KEY.active : API_KEY.inactive;
              if (current.status_code === status) {
                throw new ConsoleRefusal(409, ct(context.lang, status === API_KEY.active ? 'developers.key.alreadyActive' : 'developers.key.alreadyInactive', { key: current.client_key }));
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
        return renderKeys(deps, reply, context, failure.status, { error: failure.message });
      }
    });
  }
}

const route: RouteModule = (scope, ctx) => {
  overviewAndKeys(scope, ctx.deps);
  generateKey(scope, ctx.deps);
  keyActions(scope, ctx);
};
export default route;
