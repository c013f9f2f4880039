// What run.ts hands every part: the run's settings and the database it set up.
import type { Deps } from '../../src/http/types.ts';
import type { LoadOptions } from './load.ts';

export interface BenchContext {
  /** The run's database (migrated, queue included) and the service's Deps on it. */
  deps: Deps;
  databaseUrl: string;
  /** The server's admin URL: parts that need a database of their own create it there. */
  adminUrl: string;
  /** Whether PostgreSQL is the embedded one run.ts started (else DATABASE_URL's). */
  embedded: boolean;
  /** BENCH_SECONDS: how long each measured load runs. */
  seconds: number;
  /** BENCH_CONNECTIONS and BENCH_LOAD_GENERATOR. */
  load: LoadOptions;
}

export const describeDatabase = (ctx: BenchContext) => (ctx.embedded ? 'embedded PostgreSQL' : 'DATABASE_URL');
