// POST /merchants/accounts/{add,update,activate,suspend,blacklist} — the gateway's merchant-account
// administration at its documented paths. Here they are the operator's (POST /admin/v1/merchants/
// accounts/…, same documented body: docs/integrators-guide.md, "Merchant accounts: whose operation
// is which"): a merchant's token is refused with 403 naming the operator's path, so a client written
// for the gateway learns what happened instead of reading 404 "No operation exists". The merchant
// scoping runs first, as everywhere: another merchant's or organisation's number answers 404.
// No body schema: whatever the body, the answer for a merchant's token is the same refusal.
import { AppError, ERRORS, problem } from '../../../http/errors.ts';
import { t } from '../../../http/i18n.ts';
import { ProblemSchema } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';

export type OperatorAction = 'add' | 'update' | 'activate' | 'suspend' | 'blacklist';

const WHAT: Record<OperatorAction, { summary: string; body: string }> = {
  add: { summary: 'Create a merchant account (operator only)', body: '{organisationId, accountName, currencyCode, levelNumber, capturedBy}' },
  update: { summary: 'Update a merchant account (operator only)', body: '{merchantAccountNumber, accountName, currencyCode, organisationId?, capturedBy, levelNumber}' },
  activate: { summary: 'Activate a merchant account (operator only)', body: '{merchantAccountNumber, changedBy, reasonId, comments}' },
  suspend: { summary: 'Suspend a merchant account (operator only)', body: '{merchantAccountNumber, changedBy, reasonId, comments}' },
  blacklist: { summary: 'Blacklist a merchant account (operator only)', body: '{merchantAccountNumber, changedBy, reasonId, comments}' },
};

export function operatorOnlyRoute(action: OperatorAction): RouteModule {
  const path = `/merchants/accounts/${action}`;
  const { summary, body } = WHAT[action];
  const { $id: _id, ...schema } = ProblemSchema;
  const refused = problem('operatorOnly', 'en', t('en', 'detail.operatorOnly', { method: 'POST', path: `/sandbox/v1${path}`, action }), [], `/sandbox/v1${path}`, '9f1c3b2a-5d4e-4c7b-8a21-0e6f5d3c2b1a');
  return (app) => {
    app.post(path, {
      schema: {
        tags: ['Merchants'],
        summary,
        description:
          `The gateway's documented operation, with its body ${body}. Creating merchant accounts, their authorisation level and ` +
          'their status are the operator\'s decisions here (an API key is no person, and a suspended merchant must not lift its own ' +
          `suspension): a merchant's token is refused with ${ERRORS.operatorOnly.status} ${ERRORS.operatorOnly.errorCode} naming ` +
          `POST /admin/v1/merchants/accounts/${action}, which takes the same body with the operator token. Nothing changes. ` +
          "Another merchant's account number or organisation answers 404 E903, as everywhere.",
        response: {
          403: {
            description: `Always, for a merchant's token: the operation is the operator's (type ${refused.type}).`,
            content: { 'application/problem+json': { schema: { ...schema, examples: [{ ...refused, errors: [refused.detail] }] } } },
          },
        },
      },
      handler: async (request) => {
        throw new AppError('operatorOnly', 'detail.operatorOnly', { method: request.method, path: request.routeOptions.url ?? path, action });
      },
    });
  };
}

export const addAccount = operatorOnlyRoute('add');
export const updateAccount = operatorOnlyRoute('update');
export const activateAccount = operatorOnlyRoute('activate');
export const suspendAccount = operatorOnlyRoute('suspend');
export const blacklistAccount = operatorOnlyRoute('blacklist');
