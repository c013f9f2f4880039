// The test suite on a Citus cluster (docs/scaling.md, "Running the tests on Citus"): with
// DATABASE_URL naming a Citus coordinator's database and TEST_CITUS_WORKERS its workers
// (host:port,…), each test file's database is made on every node, migrated and distributed
// (src/db/citus-cluster.ts), with 8 shards a table rather than Citus's 32: a test database is
// small, and every shard is a table on a worker. Off unless TEST_CITUS_WORKERS is set; Citus is not
// a dependency of the project (it is built apart).
import { citusNodes, createCitusDatabase, dropCitusDatabase } from '../src/db/citus-cluster.ts';

const SHARDS_PER_TABLE = 8;
const workers = citusNodes(process.env.TEST_CITUS_WORKERS);

/** Whether test databases go on a Citus cluster. */
export const onCitus = workers !== undefined;

export function createCitusTestDatabase(adminUrl: string, name: string): Promise<void> {
  return createCitusDatabase(adminUrl, name, workers!, { shardCount: SHARDS_PER_TABLE });
}

export function dropCitusTestDatabase(adminUrl: string, name: string): Promise<void> {
  return dropCitusDatabase(adminUrl, name, workers!);
}
