// The FSPIOP side of the service under /fspiop: the switch's callbacks to our requests (and,
// with the payee side, its requests to us). Every message passes the same gate before it may
// move money (inbound.ts: content type and version, date, source and destination, the sender's
// JWS signature when keys are configured, the body against the API's schema); a failure answers
// the spec's error body (errorInformation) and changes nothing. The mutual-TLS listener
// (server.ts) serves these same routes; without one, the main port does (sandbox only).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../http/types.ts';
import { onParty, onPartyError, onQuote, onQuoteError, onTransfer, type CallbackResult } from './callbacks.ts';
import { errorInformation } from './errors.ts';
import { checkInbound, type InboundKind } from './inbound.ts';
import { recordMessages } from './messages.ts';
import { mojaloopContext } from './rail.ts';
import type { ErrorBody, MojaloopContext, PartyBody, QuoteBody } from './types.ts';
import type { Resource } from './headers.ts';

type Handler = (deps: Deps, ctx: MojaloopContext, params: Record<string, string>, source: string, body: never) => Promise<CallbackResult>;

interface FspiopRoute {
  url: string;
  resource: Resource;
  kind: InboundKind;
  handle: Handler;
}

const ROUTES: FspiopRoute[] = [
  { url: '/parties/:type/:id', resource: 'parties', kind: 'partiesPut', handle: (d, c, p, s, b: PartyBody) => onParty(d, c, p.type, p.id, s, b) },
  { url: '/parties/:type/:id/error', resource: 'parties', kind: 'error', handle: (d, c, p, _s, b: ErrorBody) => onPartyError(d, c, p.type, p.id, b) },
  { url: '/quotes/:id', resource: 'quotes', kind: 'quotesPut', handle: (d, c, p, s, b: QuoteBody) => onQuote(d, c, p.id, s, b) },
  { url: '/quotes/:id/error', resource: 'quotes', kind: 'error', handle: (d, c, p, s, b: ErrorBody) => onQuoteError(d, c, p.id, s, b) },
  { url: '/transfers/:id', resource: 'transfers', kind: 'transfersPut', handle: (d, c, p, s, b) => onTransfer(d, c, p.id, s, { kind: 'put', body: b }) },
  { url: '/transfers/:id/error', resource: 'transfers', kind: 'error', handle: (d, c, p, s, b) => onTransfer(d, c, p.id, s, { kind: 'error', body: b }) },
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
    if (error.code === 'ECONNREFUSED' || error.code === '57P01') return reply.code(503).type('application/json').send(errorInformation('2003', 'Service currently unavailable'));
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'fspiop: unexpected error');
    const code = status === 415 ? '3101' : status === 413 ? '3104' : status === 500 ? '2001' : '3100';
    return reply.code(status === 415 ? 400 : status).type('application/json').send(errorInformation(code, status === 500 ? 'Internal server error' : error.message.slice(0, 128)));
  });
  scope.setNotFoundHandler((request, reply) => reply.code(404).type('application/json').send(errorInformation('3002', `Unknown URI ${request.method} ${request.url.split('?')[0].slice(0, 100)}`)));
  for (const route of ROUTES) {
    scope.put(route.url, { config: { auth: 'none' }, schema: { hide: true } }, (request, reply) => handle(deps, ctx, route, request, reply));
  }
}

async function handle(deps: Deps, ctx: MojaloopContext, route: FspiopRoute, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const path = request.url.split('?')[0].replace(/^\/fspiop/, '');
  const params = request.params as Record<string, string>;
  const checked = checkInbound({ ctx, method: 'PUT', path, resource: route.resource, kind: route.kind, headers: request.headers, rawBody: request.body });
  const record = (status: number, outcome: string, result?: CallbackResult, body?: unknown) =>
    recordMessages(
      deps.db,
      (result?.payouts.length ? result.payouts : [undefined]).map((payout) => ({ payout, direction: 'in' as const, method: 'PUT', path, httpStatus: status, headers: request.headers as Record<string, string>, body, outcome })),
    ).catch((err: unknown) => request.log.error({ err }, 'fspiop: could not record a message'));
  if (!checked.ok) {
    request.log.warn({ path, errorCode: checked.errorCode, reason: checked.description }, 'fspiop: message refused');
    await record(checked.httpStatus, `refused: ${checked.errorCode} ${checked.description}`, undefined, checked.body);
    return reply.code(checked.httpStatus).type('application/json').send(errorInformation(checked.errorCode, checked.description));
  }
  const result = await route.handle(deps, ctx, params, checked.source, checked.body as never);
  if (result.refused) {
    request.log.warn({ path, source: checked.source, errorCode: result.refused.errorCode, reason: result.refused.reason }, 'fspiop: callback refused');
    await record(400, `refused: ${result.refused.errorCode} ${result.refused.reason}`, result, checked.body);
    return reply.code(400).type('application/json').send(errorInformation(result.refused.errorCode, result.refused.reason.slice(0, 128)));
  }
  await record(200, 'accepted', result, checked.body);
  // The next request goes out after the answer; were it lost with this process, the worker sends
  // it again when the payout's wait is over (payouts.ts).
  if (result.sends.length > 0) void ctx.client.send(result.sends).catch((err: unknown) => request.log.error({ err }, 'fspiop: could not send the next request'));
  return reply.code(200).send();
}
