// PORT is taken first, before the database is started or created: a port in use stops the start
// at once with one line (before, a busy PORT first created the database and the demo merchant,
// printed a docs URL that pointed at the other server, then died with a stack trace).
//
// Until the app is ready, a small HTTP server holds the port and answers every request 503 E952
// (starting), Retry-After: 1. Once the app is ready it closes, and Fastify listens on the port at
// once: a window of microseconds in which another process could take it, reported the same way.
// Handing the listening socket itself to Fastify would close that window, but only through
// Node's internal `_handle`, and Fastify's serverFactory would have to repeat every option app.ts
// gives its server (timeouts, connection limits).
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { listenError } from '../lib/startup-checks.ts';
import { problem } from './errors.ts';

export interface HeldPort {
  /** Stops answering and frees the port, for the app to listen on it. */
  release(): Promise<void>;
}

export async function holdPort(port: number, host: string): Promise<HeldPort> {
  const server = http.createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (req, res) => {
    const body = problem('unavailable', 'en', 'The service is starting; retry in a moment.', ['The service is starting; retry in a moment.'], req.url ?? '/', randomUUID());
    res.writeHead(503, { 'content-type': 'application/problem+json; charset=utf-8', 'retry-after': '1', connection: 'close' });
    res.end(JSON.stringify(body));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host }, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
  } catch (err) {
    throw listenError(err, port, host);
  }
  return {
    release: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
