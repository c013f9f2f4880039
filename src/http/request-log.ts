// One log line a request, written once its answer is out (Fastify's own two lines are switched
// off: they pushed the start-up banner off the terminal and logged query strings). The path only:
// a query can carry a token (a set-password or reset link).
import type { FastifyReply, FastifyRequest } from 'fastify';

export function logAnswered(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info({ method: request.method, path: request.url.split('?')[0].slice(0, 200), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
}
