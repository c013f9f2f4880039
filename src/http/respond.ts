// Small helpers for answers that Fastify would otherwise get wrong.
import type { FastifyReply } from 'fastify';
import { JSON_CONTENT_TYPE } from './idempotency.ts';

/**
 * A bare JSON string answer ("API key has been created successfully"). Fastify sends a string
 * payload as-is, so it must be JSON-encoded here to arrive as a JSON string.
 */
export function sendMessage(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type(JSON_CONTENT_TYPE).send(JSON.stringify(message));
}
