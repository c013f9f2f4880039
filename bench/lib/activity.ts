// What the service's busy database sessions are doing, sampled on the bench's own connection
// (one small query every 200 ms): a wait event (a lock, the WAL) or `running`, and the statement.
// Shows where a part's transactions queue without instrumenting the service (bench/parts/rails*.ts).
import type { Db } from '../../src/db/pool.ts';
import { log, sleep } from './common.ts';

const ACTIVITY_SAMPLE_MS = 200;

export class ActivitySampler {
  private readonly counts = new Map<string, number>();
  private samples = 0;
  private activeSessions = 0;
  private stopped = false;
  private readonly loop: Promise<void>;

  /** `label` names the part in the log line should sampling stop on an error. */
  constructor(db: Db, databaseName: string, label: string) {
    this.loop = this.sampleUntilStopped(db, databaseName).catch((err: Error) => log(`${label}: activity sampling stopped: ${err.message}`));
  }

  private async sampleUntilStopped(db: Db, databaseName: string): Promise<void> {
    while (!this.stopped) {
      const { rows } = await db.query<{ what: string }>(
        `select coalesce(wait_event_type || ' ' || wait_event, 'running') || ': ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 80) as what
           from pg_stat_activity where datname = $1 and state = 'active' and pid <> pg_backend_pid()`,
        [databaseName],
      );
      this.samples += 1;
      this.activeSessions += rows.length;
      for (const r of rows) this.counts.set(r.what, (this.counts.get(r.what) ?? 0) + 1);
      await sleep(ACTIVITY_SAMPLE_MS);
    }
  }

  /** The mean number of active sessions, and the `top` commonest things they were doing (mean sessions each). */
  async stop(top = 5) {
    this.stopped = true;
    await this.loop;
    const perSample = (n: number) => Math.round((n / Math.max(1, this.samples)) * 100) / 100;
    const commonest = [...this.counts].sort((a, b) => b[1] - a[1]).slice(0, top);
    return { samples: this.samples, meanActiveSessions: perSample(this.activeSessions), top: commonest.map(([what, n]) => ({ what, meanSessions: perSample(n) })) };
  }
}
