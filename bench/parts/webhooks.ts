// `BENCH_ONLY=webhooks npm run bench` (and part of the default run): the webhook worker in this
// process (graphile-worker and the dispatcher, as `npm run worker` runs them) against local
// node:http receivers in this same process, keep-alive, so arrival and commit times are read from
// one clock (performance.now()). On the run's database.
//   latencyMs    event committed (emitEvent in its own transaction; from the moment its commit
//                returns) → the request arriving at a receiver that answers 204 at once; 300
//                events 10 ms apart after 20 warm-up ones. Target p50 ≤ 50 ms, p99 ≤ 250 ms.
//   throughput   5000 events written in 5 transactions held open, committed together; time from
//                the commits to the 5000th distinct webhook-id arriving. Checks the database
//                (all succeeded) and counts duplicate arrivals. Target ≥ 1000 deliveries/s.
//   isolation    200 events to a receiver that never answers (attempt timeout 2 s for the bench),
//                then 200 to a fast one: the fast one must have all of them before the hanging
//                receiver's first attempt times out.
import http from 'node:http';
import type net from 'node:net';
import { workerPlan } from '../../src/composition.ts';
import { withTransaction, type Db } from '../../src/db/pool.ts';
import type { Deps } from '../../src/http/types.ts';
import { emitEvent } from '../../src/jobs/outbox.ts';
import { startWorker } from '../../src/jobs/queue.ts';
import { createMerchant, type MerchantCredentials } from '../../src/modules/merchants/service.ts';
import { samplePayload } from '../../src/modules/webhooks/payloads.ts';
import { addWebhook } from '../../src/modules/webhooks/service.ts';
import { log, round1, sleep } from '../lib/common.ts';
import type { BenchContext } from '../lib/context.ts';
import { percentile } from '../lib/stats.ts';

const LATENCY_WARMUP_EVENTS = 20;
const LATENCY_EVENTS = 300;
const LATENCY_SPACING_MS = 10;
const THROUGHPUT_EVENTS = 5000;
const THROUGHPUT_TRANSACTIONS = 5;
const ISOLATION_EVENTS = 200;
const ISOLATION_TIMEOUT_MS = 2000;

interface Receiver {
  url: string;
  /** Requests received, duplicates included. */
  hits: number;
  /** Distinct webhook-id headers seen. */
  readonly ids: Set<string>;
  /** performance.now() at the first request, and when each distinct delivery arrived (by payload benchSeq). */
  firstAt: number | undefined;
  readonly arrivals: Map<number, number>;
  /** Resolves with the arrival time of the n-th distinct delivery. */
  distinct(n: number, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** `fast` answers 204 as soon as the (small) body is in; `hang` reads the request and never answers. */
async function startReceiver(kind: 'fast' | 'hang'): Promise<Receiver> {
  const waiters: { n: number; resolve: (at: number) => void }[] = [];
  const server = http.createServer((req, res) => {
    const at = performance.now();
    receiver.hits += 1;
    receiver.firstAt ??= at;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!receiver.ids.has(id)) {
        receiver.ids.add(id);
        const seq = (JSON.parse(Buffer.concat(chunks).toString()) as { benchSeq?: number }).benchSeq;
        if (typeof seq === 'number') receiver.arrivals.set(seq, at);
        for (let i = waiters.length - 1; i >= 0; i--) {
          if (receiver.ids.size >= waiters[i].n) {
            waiters[i].resolve(at);
            waiters.splice(i, 1);
          }
        }
      }
      if (kind === 'fast') res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/${kind}`,
    hits: 0,
    ids: new Set(),
    firstAt: undefined,
    arrivals: new Map(),
    distinct: (n, timeoutMs) =>
      new Promise((resolve, reject) => {
        if (receiver.ids.size >= n) {
          resolve(performance.now());
          return;
        }
        const timer = setTimeout(() => reject(new Error(`${kind} receiver: ${receiver.ids.size} of ${n} deliveries within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          n,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return receiver;
}

/** A merchant subscribed to payment.success at `callbackUrl`. */
async function subscribedMerchant(deps: Deps, name: string, callbackUrl: string): Promise<MerchantCredentials> {
  const merchant = await createMerchant(deps, { accountName: name, capturedBy: 'bench' });
  await addWebhook(deps, { merchantAccountNumber: merchant.merchantAccountNumber, eventCode: 'payment.success', callbackUrl, capturedBy: 'bench@example.mw' });
  return merchant;
}

function payload(merchant: MerchantCredentials, benchSeq: number): object {
  return { ...samplePayload('payment.success', merchant.merchantAccountNumber, merchant.paymentAccountNumber, new Date()), benchSeq };
}

/** `count` events in one transaction on its own connection, committed only when `commit` is called. */
async function openTransaction(db: Db, merchant: MerchantCredentials, firstSeq: number, count: number): Promise<{ commit(): Promise<void> }> {
  const client = await db.connect();
  try {
    await client.query('begin');
    for (let i = 0; i < count; i++) await emitEvent(client, merchant.merchantAccountNumber, 'payment.success', payload(merchant, firstSeq + i));
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    client.release();
    throw err;
  }
  return {
    commit: async () => {
      try {
        await client.query('commit');
      } finally {
        client.release();
      }
    },
  };
}

async function deliveryStates(db: Db, merchant: MerchantCredentials) {
  const { rows } = await db.query<{ total: number; succeeded: number; retried: number; attempts: number }>(
    `select count(*)::int as total,
            count(*) filter (where status = 'succeeded')::int as succeeded,
            count(*) filter (where total_attempts > 1)::int as retried,
            coalesce(sum(total_attempts), 0)::int as attempts
       from webhook_deliveries where merchant_account_number = $1`,
    [merchant.merchantAccountNumber],
  );
  return rows[0];
}

/** Event committed → request at the receiver, one event at a time. */
async function benchLatency(deps: Deps) {
  const receiver = await startReceiver('fast');
  try {
    const merchant = await subscribedMerchant(deps, 'Bench Latency', receiver.url);
    const emit = (seq: number) => withTransaction(deps.db, (tx) => emitEvent(tx, merchant.merchantAccountNumber, 'payment.success', payload(merchant, seq)));
    log(`webhooks latency: ${LATENCY_WARMUP_EVENTS} warm-up events, then ${LATENCY_EVENTS} measured, ${LATENCY_SPACING_MS} ms apart`);
    for (let i = 0; i < LATENCY_WARMUP_EVENTS; i++) {
      await emit(-1 - i);
      await sleep(LATENCY_SPACING_MS);
    }
    await receiver.distinct(LATENCY_WARMUP_EVENTS, 30_000);
    const committedAt = new Map<number, number>();
    for (let seq = 0; seq < LATENCY_EVENTS; seq++) {
      await emit(seq);
      committedAt.set(seq, performance.now());
      await sleep(LATENCY_SPACING_MS);
    }
    await receiver.distinct(LATENCY_WARMUP_EVENTS + LATENCY_EVENTS, 30_000);
    const samples = [...committedAt].map(([seq, at]) => receiver.arrivals.get(seq)! - at).sort((a, b) => a - b);
    const latencyMs = { p50: round1(percentile(samples, 50)), p99: round1(percentile(samples, 99)), max: round1(samples[samples.length - 1]), samples: samples.length };
    log(`webhooks latency: ${JSON.stringify(latencyMs)}`);
    return latencyMs;
  } finally {
    await receiver.close();
  }
}

/** N events committed at once (a few transactions), then the time until all have arrived. */
async function benchThroughput(deps: Deps) {
  const receiver = await startReceiver('fast');
  try {
    const merchant = await subscribedMerchant(deps, 'Bench Throughput', receiver.url);
    log(`webhooks throughput: emitting ${THROUGHPUT_EVENTS} events in ${THROUGHPUT_TRANSACTIONS} open transactions`);
    const perTransaction = THROUGHPUT_EVENTS / THROUGHPUT_TRANSACTIONS;
    const emitStarted = performance.now();
    const transactions = await Promise.all(Array.from({ length: THROUGHPUT_TRANSACTIONS }, (_, i) => openTransaction(deps.db, merchant, i * perTransaction, perTransaction)));
    const emitSeconds = (performance.now() - emitStarted) / 1000;
    log(`webhooks throughput: emitted in ${emitSeconds.toFixed(2)} s; committing and measuring`);
    const started = performance.now();
    await Promise.all(transactions.map((tx) => tx.commit()));
    const lastArrival = await receiver.distinct(THROUGHPUT_EVENTS, 120_000);
    const seconds = (lastArrival - started) / 1000;
    // Every attempt recorded as succeeded, and no late duplicates.
    let states = await deliveryStates(deps.db, merchant);
    for (const deadline = performance.now() + 30_000; states.succeeded < THROUGHPUT_EVENTS && performance.now() < deadline; ) {
      await sleep(50);
      states = await deliveryStates(deps.db, merchant);
    }
    await sleep(500);
    const throughput = {
      deliveries: receiver.ids.size,
      seconds: Math.round(seconds * 1000) / 1000,
      deliveriesPerSecond: round1(THROUGHPUT_EVENTS / seconds),
      duplicates: receiver.hits - receiver.ids.size,
      succeededInDatabase: states.succeeded,
      deliveriesInDatabase: states.total,
      retriedInDatabase: states.retried,
      allSucceeded: states.succeeded === THROUGHPUT_EVENTS && states.total === THROUGHPUT_EVENTS,
      emitSeconds: Math.round(emitSeconds * 1000) / 1000,
      transactions: THROUGHPUT_TRANSACTIONS,
    };
    log(`webhooks throughput: ${JSON.stringify(throughput)}`);
    return throughput;
  } finally {
    await receiver.close();
  }
}

/** A receiver that never answers gets its events first; the fast one's must not wait for its timeouts. */
async function benchIsolation(deps: Deps) {
  const hanging = await startReceiver('hang');
  const fast = await startReceiver('fast');
  const worker = await startWorker(deps, 2, workerPlan(deps));
  try {
    const hangingMerchant = await subscribedMerchant(deps, 'Bench Hanging', hanging.url);
    const fastMerchant = await subscribedMerchant(deps, 'Bench Fast', fast.url);
    log(`webhooks isolation: ${ISOLATION_EVENTS} events to a receiver that never answers (timeout ${deps.config.webhookTimeoutMs} ms), then ${ISOLATION_EVENTS} to a fast one`);
    const toHanging = await openTransaction(deps.db, hangingMerchant, 0, ISOLATION_EVENTS);
    const toFast = await openTransaction(deps.db, fastMerchant, 0, ISOLATION_EVENTS);
    const hangingCommitted = performance.now();
    await toHanging.commit();
    // The hanging receiver has its first requests (the dispatcher is busy with it) before the fast one's events exist.
    await hanging.distinct(1, 10_000);
    const fastCommitStarted = performance.now();
    await toFast.commit();
    const fastDone = await fast.distinct(ISOLATION_EVENTS, 60_000);
    const firstTimeoutAt = (hanging.firstAt ?? hangingCommitted) + deps.config.webhookTimeoutMs;
    const { rows: claimedRows } = await deps.db.query<{ n: number; attempts: number }>(
      `select count(*) filter (where locked_until is not null)::int as n, coalesce(sum(total_attempts), 0)::int as attempts from webhook_deliveries where merchant_account_number = $1`,
      [hangingMerchant.merchantAccountNumber],
    );
    const hangingLeasedAtFastDone = claimedRows[0].n;
    const isolation = {
      hangingEvents: ISOLATION_EVENTS,
      fastEvents: ISOLATION_EVENTS,
      timeoutMs: deps.config.webhookTimeoutMs,
      concurrency: deps.config.webhookConcurrency,
      perHostConcurrency: deps.config.webhookPerHostConcurrency,
      fastAllDeliveredMs: round1(fastDone - fastCommitStarted),
      hangingFirstRequestToFastDoneMs: round1(fastDone - (hanging.firstAt ?? hangingCommitted)),
      hangingRequestsInFlightAtFastDone: hanging.hits,
      hangingLeasedAtFastDone,
      fastFinishedBeforeFirstTimeout: fastDone < firstTimeoutAt,
    };
    log(`webhooks isolation: ${JSON.stringify(isolation)}`);
    return isolation;
  } finally {
    await worker.stop();
    await hanging.close();
    await fast.close();
  }
}

export async function benchWebhooks({ deps }: BenchContext) {
  const worker = await startWorker(deps, 2, workerPlan(deps));
  let latencyMs;
  let throughput;
  try {
    latencyMs = await benchLatency(deps);
    throughput = await benchThroughput(deps);
  } finally {
    await worker.stop();
  }
  // Shorter attempt timeout so the bench does not wait 15 s; the lease must stay longer.
  const isolation = await benchIsolation({ ...deps, config: { ...deps.config, webhookTimeoutMs: ISOLATION_TIMEOUT_MS, webhookLeaseMs: ISOLATION_TIMEOUT_MS + 15_000 } });
  return {
    worker: `in process: dispatcher concurrency ${deps.config.webhookConcurrency}, per host ${deps.config.webhookPerHostConcurrency}; receivers in the same process`,
    latencyMs,
    throughput,
    isolation,
  };
}

