// POST /security/merchantUsers/getMerchantClaims {organisationId, merchantAccountNumber, userId} —
// the user's claims for the merchant, as the gateway documents them: a list of
// {claimType, claimValue} (MerchantAccountName, MerchantStatusCode, LevelNumber, LevelName,
// MerchantAccountNumber, OrganisationId, OrganisationTypeCode, Role, UserRole), then ours (UserId,
// EmailAddress, UserStatusCode and one Permission per batch action the role allows an active
// user). `merchantAccountNumber` 0 means "from the login context" on the gateway: here, the
// token's merchant. Another merchant's user answers 404.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { OrganisationId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { Claim, UserRef } from '../schemas.ts';
import { merchantClaims } from '../service.ts';

/**
 * 0 (the gateway's "login context") or an 8-digit account number. Other values pass this schema
 * only to be refused by the merchant scoping (400 naming the 8 digits, or 404 for another
 * merchant), as on every route.
 */
const ClaimsMerchantAccountNumber = Type.Integer({
  minimum: 0,
  maximum: 99999999,
  description: 'The merchant account number (8 digits), or 0: the merchant of the access token (the gateway\'s "login context").',
  examples: [10010001, 0],
  'x-message': 'field.merchantAccountNumber',
});

const Body = Type.Object({ organisationId: Type.Optional(OrganisationId), merchantAccountNumber: ClaimsMerchantAccountNumber, userId: UserRef });

/** 0 names the token's merchant: replaced before validation, so the scoping sees the real number. */
async function loginContext(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null;
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !request.principal) return;
  if (body.merchantAccountNumber === 0 || body.merchantAccountNumber === '0') body.merchantAccountNumber = request.principal.merchantAccountNumber;
}

const route: RouteModule = (app, { deps }) => {
  app.post('/security/merchantUsers/getMerchantClaims', {
    preValidation: loginContext,
    schema: {
      tags: ['Merchant users'],
      summary: 'Get a merchant user\'s claims',
      description:
        'The user\'s claims for the merchant, as {claimType, claimValue} pairs: MerchantAccountName, MerchantStatusCode, LevelNumber, LevelName, MerchantAccountNumber, OrganisationId, OrganisationTypeCode (MER), Role (the role code, e.g. MERC_ADMIN) and UserRole (its name), as the gateway documents them; then UserId, EmailAddress, UserStatusCode and, while the user is active, one Permission per batch action the role allows (batch.review, batch.approve, batch.reject, batch.cancel, batch.transferFunds; batch.cancel.own: only batches the user captured). merchantAccountNumber 0: the token\'s merchant.',
      body: Body,
      response: { 200: Type.Array(Claim, { description: 'The user\'s claims, as {claimType, claimValue} pairs.' }) },
    },
    handler: async (request) => merchantClaims(deps, request.lang, request.principal!.merchantAccountNumber, request.body.userId),
  });
};
export default route;
