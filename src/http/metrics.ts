// Prometheus metrics at /metrics: request counts and latency by route and status, the job queue
// depth and the database pool. One registry per app, so tests can build many apps.
import client from 'prom-client';
import type { Db } from '../db/pool.ts';

export interface Metrics {
  registry: client.Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** Rows one shared statement carried (lib/coalescer.ts), by statement. */
  observeBatch(statement: string, rows: number): void;
}

export function createMetrics(db: Db): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const batchRows = new client.Histogram({
    name: 'db_batched_statement_rows',
    help: 'Requests that shared one statement (concurrent E12s share one insert), by statement.',
    labelNames: ['statement'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [registry],
  });
  registerGauges(registry, db);
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    observeBatch(statement, rows) {
      batchRows.observe({ statement }, rows);
    },
  };
}

/** What is read when /metrics is asked: the database pool, the job queue and the webhook backlog. */
function registerGauges(registry: client.Registry, db: Db): void {
  new client.Gauge({
    name: 'db_pool_connections',
    help: 'Database pool clients by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, db.totalCount);
      this.set({ state: 'idle' }, db.idleCount);
      this.set({ state: 'waiting' }, db.waitingCount);
    },
  });
  new client.Gauge({
    name: 'job_queue_depth',
    help: 'Jobs waiting in the queue (ready now or scheduled), by task.',
    labelNames: ['task'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await db
        .query<{ task: string; n: number }>(
          `select t.identifier as task, count(*)::int as n
             from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
            where j.locked_at is null group by t.identifier`,
        )
        .catch(() => ({ rows: [] as Array<{ task: string; n: number }> }));
      for (const row of rows) this.set({ task: row.task }, row.n);
    },
  });
  new client.Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Webhook deliveries not yet succeeded or failed: due now (backlog) or waiting for a retry.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const { rows } = await db
        .query<{ due: number; waiting: number }>(
          `select count(*) filter (where next_attempt_at <= now())::int as due,
                  count(*) filter (where next_attempt_at > now())::int as waiting
             from webhook_deliveries where status = 'pending'`,
        )
        .catch(() => ({ rows: [{ due: 0, waiting: 0 }] }));
      this.set({ state: 'due' }, rows[0].due);
      this.set({ state: 'waiting' }, rows[0].waiting);
    },
  });
}
