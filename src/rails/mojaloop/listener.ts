// The listener of the switch's own (MOJALOOP_TLS_PORT): HTTPS that requires a client certificate
// signed by MOJALOOP_TLS_CA, so that only the switch reaches the routes that move money. It serves
// /fspiop and nothing else; the merchant API and the console stay on the main port.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { logAnswered } from '../../http/request-log.ts';
import type { Deps } from '../../http/types.ts';
import { registerFspiopRoutes } from './routes.ts';

export async function buildFspiopListener(deps: Deps): Promise<FastifyInstance | undefined> {
  const tls = deps.config.mojaloop?.tls;
  if (!tls) return undefined;
  const app = Fastify({
    loggerInstance: deps.log,
    https: { cert: tls.certPem, key: tls.keyPem, ca: tls.caPem, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    bodyLimit: deps.config.bodyLimitBytes,
    connectionTimeout: 60_000,
    requestTimeout: 60_000,
    return503OnClosing: true,
    // One line a request, as on the main port (http/request-log.ts); the messages are kept in rail_messages.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook('onResponse', async (request, reply) => logAnswered(request, reply));
  await app.register((scope) => registerFspiopRoutes(scope, deps), { prefix: '/fspiop' });
  return app;
}
