// Prints the OpenAPI document the service serves at /openapi.json (sandbox mode, every operation),
// without a database: the app is built on a pool that never connects (nothing is queried to describe
// routes). For the linters and the SDK's generated types: `node --import tsx scripts/openapi.ts`.
import { pino } from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/pool.ts';
import { systemClock, type Deps } from '../src/http/types.ts';

const JWT_SECRET = 'openapi-document-only-0123456789abcdef0123';
const config = loadConfig({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', ADMIN_TOKEN: 'openapi-document-only', LOG_LEVEL: 'silent', JWT_SECRET });
const db = createPool(config.databaseUrl!, 1);
const deps: Deps = { db, config, clock: systemClock, log: pino({ level: 'silent' }), jwtSecret: new TextEncoder().encode(JWT_SECRET) };
const built = await buildApp(deps);
await built.app.ready();
process.stdout.write(`${JSON.stringify(built.app.swagger(), null, 1)}\n`);
await built.app.close();
await db.end();
