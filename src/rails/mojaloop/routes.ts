// The FSPIOP side of the service under /fspiop: the switch's callbacks to our requests (and,
// with the payee side, its requests to us). Every message passes the same gate before it may
// move money (inbound.ts: content type and version, date, source and destination, the sender's
// JWS signature when keys are configured, the body against the API's schema); a failure answers
// the spec's error body (errorInformation) and changes nothing. The mutual-TLS listener
// (server.ts) serves these same routes; without one, the main port does (sandbox only).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../http/types.ts';
import { onParty, onPartyError, onQuote, onQuoteError, onTransfer } from './callbacks.ts';
import type { SwitchAnswer, SwitchRequest } from './client.ts';
import { errorInformation } from './errors.ts';
import type { FspiopVersion, Resource } from './headers.ts';
import { isCorrelationId } from './ids.ts';
import { checkInbound, type InboundKind } from './inbound.ts';
import { recordMessages } from './messages.ts';
import { isCollectionTransfer, onPartyLookup, onQuoteRequest, onSwitchWord, onTransferRequest, type QuoteRequest, type TransferRequest, type TransferState } from './payee.ts';
import { mojaloopContext } from './rail.ts';
import { recordTransferReport } from './reports.ts';
import type { ErrorBody, MojaloopContext, PartyBody, QuoteBody } from './types.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../../db/errors.ts';

/** What a handler did, payer side (callbacks.ts) or payee side (payee.ts). */
interface Result {
  refused?: { errorCode: string; reason: string };
  payouts?: { merchantAccountNumber: number; payoutId: number }[];
  collections?: { merchantAccountNumber: number; inboundId: number }[];
  sends: SwitchRequest[];
  afterSend?: (answers: SwitchAnswer[]) => Promise<void>;
}

interface Inbound {
  params: Record<string, string>;
  source: string;
  body: never;
  version: FspiopVersion;
}

type Handler = (deps: Deps, ctx: MojaloopContext, m: Inbound) => Promise<Result>;

interface FspiopRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  url: string;
  resource: Resource;
  kind: InboundKind;
  handle: Handler;
}

/** PUT /transfers/{ID}[/error]: about one of our collections (the switch's word), or one of our payouts. */
const transferAnswer =
  (kind: 'put' | 'error'): Handler =>
  async (d, c, m) => {
    const id = m.params.id;
    if (await isCollectionTransfer(d, id)) {
      const b = m.body as TransferState | ErrorBody;
      return onSwitchWord(d, c, id, m.source, kind === 'put' ? { kind: 'state', body: b as TransferState } : { kind: 'error', errorCode: (b as ErrorBody).errorInformation.errorCode });
    }
    return onTransfer(d, c, id, m.source, kind === 'put' ? { kind: 'put', body: m.body } : { kind: 'error', body: m.body });
  };

const ROUTES: FspiopRoute[] = [
  // The switch's callbacks to our requests (payouts: callbacks.ts).
  { method: 'PUT', url: '/parties/:type/:id', resource: 'parties', kind: 'partiesPut', handle: (d, c, m) => onParty(d, c, m.params.type, m.params.id, m.source, m.body as PartyBody) },
  { method: 'PUT', url: '/parties/:type/:id/error', resource: 'parties', kind: 'error', handle: (d, c, m) => onPartyError(d, c, m.params.type, m.params.id, m.body as ErrorBody) },
  { method: 'PUT', url: '/quotes/:id', resource: 'quotes', kind: 'quotesPut', handle: (d, c, m) => onQuote(d, c, m.params.id, m.source, m.body as QuoteBody) },
  { method: 'PUT', url: '/quotes/:id/error', resource: 'quotes', kind: 'error', handle: (d, c, m) => onQuoteError(d, c, m.params.id, m.source, m.body as ErrorBody) },
  { method: 'PUT', url: '/transfers/:id', resource: 'transfers', kind: 'transfersPut', handle: transferAnswer('put') },
  { method: 'PUT', url: '/transfers/:id/error', resource: 'transfers', kind: 'error', handle: transferAnswer('error') },
  // A payer DFSP's requests to us as the payee (payee.ts).
  { method: 'GET', url: '/parties/:type/:id', resource: 'parties', kind: 'none', handle: (d, c, m) => onPartyLookup(d, c, { type: m.params.type, id: m.params.id }, m.source, m.version) },
  { method: 'GET', url: '/parties/:type/:id/:subId', resource: 'parties', kind: 'none', handle: (d, c, m) => onPartyLookup(d, c, { type: m.params.type, id: m.params.id, subId: m.params.subId }, m.source, m.version) },
  { method: 'POST', url: '/quotes', resource: 'quotes', kind: 'quotesPost', handle: (d, c, m) => onQuoteRequest(d, c, m.source, m.body as QuoteRequest, m.version) },
  { method: 'POST', url: '/transfers', resource: 'transfers', kind: 'transfersPost', handle: (d, c, m) => onTransferRequest(d, c, m.source, m.body as TransferRequest, m.version) },
  // FSPIOP 1.1: the switch's final state of a transfer we answered RESERVED.
  { method: 'PATCH', url: '/transfers/:id', resource: 'transfers', kind: 'transfersPatch', handle: (d, c, m) => onSwitchWord(d, c, m.params.id, m.source, { kind: 'state', body: m.body as TransferState }) },
];

/** Registers the FSPIOP routes in `scope` (prefixed /fspiop by the caller). */
export async function registerFspiopRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const ctx = mojaloopContext(deps);
  // FSPIOP bodies are application/vnd.interoperability.<resource>+json: kept as bytes, because the
  // JWS signature is over the bytes as sent; checkInbound parses them after verifying.
  scope.addContentTypeParser(/^application\/vnd\.interoperability\./, { parseAs: 'buffer', bodyLimit: deps.config.bodyLimitBytes }, (_req, body, done) => done(null, body));
  scope.removeContentTypeParser(['application/json']);
  scope.setErrorHandler(async (error: { statusCode?: number; code?: string; message: string }, request, reply) => {
    // The database gone (a restart, a failover): the switch may try again; nothing was done.
    if (isDatabaseUnavailable(error)) return reply.code(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).type('application/json').send(errorInformation('2003', 'Service currently unavailable'));
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'fspiop: unexpected error');
    const code = status === 415 ? '3101' : status === 413 ? '3104' : status === 500 ? '2001' : '3100';
    const description = status === 500 ? 'Internal server error' : status === 415 ? 'Malformed syntax - the content-type header is not an FSPIOP media type' : error.message.slice(0, 128);
    return reply.code(status === 415 ? 400 : status).type('application/json').send(errorInformation(code, description));
  });
  scope.setNotFoundHandler((request, reply) => reply.code(404).type('application/json').send(errorInformation('3002', `Unknown URI ${request.method} ${request.url.split('?')[0].slice(0, 100)}`)));
  for (const route of ROUTES) {
    scope.route({ method: route.method, url: route.url, config: { auth: 'none' }, schema: { hide: true }, handler: (request, reply) => handle(deps, ctx, route, request, reply) });
  }
}

/** "3204 Party not found" when `sends` is one error callback. */
function errorCallbackOf(sends: SwitchRequest[]): string | undefined {
  const body = sends.length === 1 && sends[0].path.endsWith('/error') ? (sends[0].body as ErrorBody | undefined) : undefined;
  return body ? `${body.errorInformation.errorCode} ${body.errorInformation.errorDescription}` : undefined;
}

async function handle(deps: Deps, ctx: MojaloopContext, route: FspiopRoute, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const path = request.url.split('?')[0].replace(/^\/fspiop/, '');
  const params = request.params as Record<string, string>;
  const checked = checkInbound({ ctx, method: route.method, path, resource: route.resource, kind: route.kind, headers: request.headers, rawBody: request.body });
  const record = (status: number, outcome: string, result?: Result, body?: unknown) => {
    const owners = [...(result?.payouts ?? []).map((payout) => ({ payout })), ...(result?.collections ?? []).map((collection) => ({ collection }))];
    // A lookup names no collection of ours and moves no money: not kept (it would be every wallet's question).
    if (owners.length === 0 && route.method === 'GET' && checked.ok) return Promise.resolve();
    return recordMessages(
      deps.db,
      (owners.length > 0 ? owners : [{}]).map((owner) => ({ ...owner, direction: 'in' as const, method: route.method, path, httpStatus: status, headers: request.headers as Record<string, string>, body, outcome })),
    ).catch((err: unknown) => request.log.error({ err }, 'fspiop: could not record a message'));
  };
  if (!checked.ok) {
    request.log.warn({ path, errorCode: checked.errorCode, reason: checked.description }, 'fspiop: message refused');
    await record(checked.httpStatus, `refused: ${checked.errorCode} ${checked.description}`, undefined, checked.body);
    return reply.code(checked.httpStatus).type('application/json').send(errorInformation(checked.errorCode, checked.description));
  }
  if (Object.values(params).some((value) => value.includes('\u0000'))) {
    await record(400, 'refused: 3101 a NUL character in the path', undefined, checked.body);
    return reply.code(400).type('application/json').send(errorInformation('3101', 'Malformed syntax - the path holds a NUL character'));
  }
  // A quote's or a transfer's ID is a UUID (CorrelationId): anything else names nothing of ours.
  if (route.resource !== 'parties' && params.id !== undefined && !isCorrelationId(params.id)) {
    await record(400, 'refused: 3101 the ID in the path is not a UUID', undefined, checked.body);
    return reply.code(400).type('application/json').send(errorInformation('3101', 'Malformed syntax - the ID in the path is not a UUID'));
  }
  const result = await route.handle(deps, ctx, { params, source: checked.source, body: checked.body as never, version: checked.version });
  if (route.resource === 'transfers' && route.method !== 'POST') await recordTransferReport(deps.db, ctx, { transferId: params.id, source: checked.source, body: checked.body, refused: Boolean(result.refused) });
  if (result.refused) {
    request.log.warn({ path, source: checked.source, errorCode: result.refused.errorCode, reason: result.refused.reason }, 'fspiop: message refused');
    await record(400, `refused: ${result.refused.errorCode} ${result.refused.reason}`, result, checked.body);
    return reply.code(400).type('application/json').send(errorInformation(result.refused.errorCode, result.refused.reason.slice(0, 128)));
  }
  // A request that named nothing of ours is answered by an error callback: kept with why.
  const refusal = (result.collections ?? []).length === 0 && (result.payouts ?? []).length === 0 ? errorCallbackOf(result.sends) : undefined;
  await record(route.method === 'GET' || route.method === 'POST' ? 202 : 200, refusal ? `refused by callback: ${refusal}` : 'accepted', result, checked.body);
  // The next request or our callback goes out after the answer (a payer's DFSP reads the answer
  // first). Were it lost with this process, the worker sends it again: a payout's when its wait is
  // over (payouts.ts), a collection's fulfilment by the payee sweep (payee-sweep.ts).
  if (result.sends.length > 0) {
    reply.raw.once('finish', () => {
      void ctx.client
        .send(result.sends)
        .then((answers) => result.afterSend?.(answers))
        .catch((err: unknown) => request.log.error({ err }, 'fspiop: could not send the next request'));
    });
  }
  return reply.code(route.method === 'GET' || route.method === 'POST' ? 202 : 200).send();
}
