// GET /health/live (the process answers) and /health/ready (database reachable, migrations done).
import { Type } from '@sinclair/typebox';
import { migrationsComplete } from '../../../db/migrate.ts';
import type { RouteModule } from '../../../http/types.ts';

const Status = Type.Object({ status: Type.String(), database: Type.Optional(Type.String()), migrations: Type.Optional(Type.String()) });
// The CLI asks it to tell "started without ADMIN_TOKEN" from any other 404 of an operator command.
const Live = Type.Object({
  status: Type.String(),
  operatorApi: Type.Boolean({ description: 'Whether the operator API (/admin/v1, ADMIN_TOKEN) is on. Off, its routes answer 404.' }),
});

const route: RouteModule = (app, { deps }) => {
  app.get('/health/live', {
    config: { auth: 'none' },
    schema: {
      tags: ['Operations'],
      summary: 'Liveness',
      description: 'Answers while the process runs, without touching the database; says whether the operator API is on. For a load balancer\'s liveness probe.',
      security: [],
      response: { 200: { ...Live, description: 'The process is alive: status ok.' } },
    },
    handler: async () => ({ status: 'ok', operatorApi: deps.config.adminToken !== undefined }),
  });
  app.get('/health/ready', {
    config: { auth: 'none' },
    schema: {
      tags: ['Operations'],
      summary: 'Readiness',
      description: 'Ready to serve: the database answers and every migration is applied. For a load balancer\'s readiness probe.',
      security: [],
      response: {
        200: { ...Status, description: 'Ready: database up, migrations done.' },
        503: { ...Status, description: 'Not ready: migrations pending, or the database is down.' },
      },
    },
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
