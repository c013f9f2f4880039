// The origin links sent to people start with (checkout pages, set-password links): PUBLIC_BASE_URL
// when set, else the request's own protocol and Host. A Host header that is not a plain name or
// address (with an optional port) is not trusted to start a link: it becomes localhost.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/** A Host header fit to start a link with (name or [v6] address, optional port). */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function publicBaseUrl(config: Pick<Config, 'publicBaseUrl'>, request: FastifyRequest): string {
  return config.publicBaseUrl ?? `${request.protocol}://${HOST.test(request.host) ? request.host : 'localhost'}`;
}

/** The origin hosted checkout links start with: PUBLIC_CHECKOUT_URL, else as publicBaseUrl. */
export function publicCheckoutUrl(config: Pick<Config, 'publicBaseUrl' | 'publicCheckoutUrl'>, request: FastifyRequest): string {
  return config.publicCheckoutUrl ?? publicBaseUrl(config, request);
}
