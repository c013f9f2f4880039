// GET /health/live (the process answers) and /health/ready (database reachable, migrations done).
import { Type } from '@sinclair/typebox';
import { migrationsComplete } from '../../../db/migrate.ts';
import type { RouteModule } from '../../../http/types.ts';

const Status = Type.Object({ status: Type.String(), database: Type.Optional(Type.String()), migrations: Type.Optional(Type.String()) });

const route: RouteModule = (app, { deps }) => {
  app.get('/health/live', {
    config: { auth: 'none' },
    schema: { tags: ['Operations'], summary: 'Liveness', response: { 200: Status } },
    handler: async () => ({ status: 'ok' }),
  });
  app.get('/health/ready', {
    config: { auth: 'none' },
    schema: { tags: ['Operations'], summary: 'Readiness', response: { 200: Status, 503: Status } },
    handler: async (_request, reply) => {
      try {
        const done = await migrationsComplete(deps.db);
        if (!done) return reply.code(503).send({ status: 'starting', database: 'up', migrations: 'pending' });
        return { status: 'ready', database: 'up', migrations: 'done' };
      } catch {
        return reply.code(503).send({ status: 'unavailable', database: 'down' });
      }
    },
  });
};
export default route;
