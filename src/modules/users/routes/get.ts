// GET /security/merchantUsers/get?merchantAccountNumber=&userId= — one user of the caller's merchant.
// POST /security/merchantUsers/get {merchantAccountNumber, userId} — the same, as the gateway's
// curl example sends it (a JSON body, and `"userId": 8`, a number). A GET may carry that body too.
// Another merchant's user, and a userId that is no user's id, answer 404.
import { Type } from '@sinclair/typebox';
import { mergeGetBodyIntoQuery } from '../../../http/get-body.ts';
import { MerchantAccountNumber, OrganisationId } from '../../../http/schemas.ts';
import type { RouteModule } from '../../../http/types.ts';
import { MerchantUser, UserId, UserRef } from '../schemas.ts';
import { getMerchantUser, userView } from '../service.ts';

const DESCRIPTION =
  'One user of the caller\'s merchant: the gateway\'s record (userId, names, emailAddress, phoneNumber, isEmailConfirmed, roleName, statusCode, statusName, capturedBy, dateCaptured, modifiedBy, dateModified) and ours (roleId, roleCode, organisationId, merchantAccountNumber, isPasswordSet, dateCreated).';

const route: RouteModule = (app, { deps }) => {
  app.get('/security/merchantUsers/get', {
    preValidation: mergeGetBodyIntoQuery,
    schema: {
      tags: ['Merchant users'],
      summary: 'Get a merchant user',
      description: `${DESCRIPTION} merchantAccountNumber and userId are read from the query string or from a JSON body.`,
      querystring: Type.Object({ merchantAccountNumber: MerchantAccountNumber, userId: UserId }),
      response: { 200: { ...MerchantUser, description: 'The merchant user.' } },
    },
    handler: async (request) => userView(request.lang, await getMerchantUser(deps, request.principal!.merchantAccountNumber, request.query.userId)),
  });

  app.post('/security/merchantUsers/get', {
    schema: {
      tags: ['Merchant users'],
      summary: 'Get a merchant user (JSON body)',
      description: `${DESCRIPTION} The gateway's documentation sends this request as a POST with a JSON body; the answer is the GET's.`,
      body: Type.Object({ organisationId: Type.Optional(OrganisationId), merchantAccountNumber: MerchantAccountNumber, userId: UserRef }),
      response: { 200: { ...MerchantUser, description: 'The merchant user.' } },
    },
    handler: async (request) => userView(request.lang, await getMerchantUser(deps, request.principal!.merchantAccountNumber, request.body.userId)),
  });
};
export default route;
