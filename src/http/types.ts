// The app's types: the Fastify instance with the TypeBox provider, the dependencies every
// service receives, and what hooks attach to a request.
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Db } from '../db/pool.ts';
import type { Clock } from '../lib/clock.ts';
import type { Lang } from './i18n.ts';
import type { ReplicaSet } from '../db/replicas.ts';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

// The clock lives in lib/ (lib/ttl-cache.ts needs it too); named here as well for the services.
export { systemClock, type Clock } from '../lib/clock.ts';

export interface Deps {
  db: Db;
  /**
   * Connections for copying large uploads while they arrive (disbursements/upload.ts), when they
   * should not be the pool's: over TCP to the embedded server (see db/embedded.ts overTcp).
   * Absent: the pool's.
   */
  uploadDb?: Db;
  /**
   * Connections that keep session state (LISTEN for the webhook dispatcher and the job queue's
   * runner): on DATABASE_DIRECT_URL when `db` goes through a transaction pooler. Absent: `db`.
   */
  sessionDb?: Db;
  /** Read replicas (DATABASE_REPLICA_URL): lists, analytics, statements and console pages read through readDb (db/replicas.ts). */
  reads?: ReplicaSet;
  config: Config;
  clock: Clock;
  log: FastifyBaseLogger;
  jwtSecret: Uint8Array;
}

/** Who is calling: set by the auth hook from a verified access token. */
export interface Principal {
  clientId: number;
  organisationId: string;
  merchantAccountNumber: number;
}

export interface IdempotencyContext {
  merchantAccountNumber: number;
  key: string;
  fingerprint: string;
  /** How long the record is kept (IDEMPOTENCY_RETENTION_HOURS). */
  retentionHours: number;
  /** Set once the answer is on its way into the effect's transaction, or was answered from a record. */
  completed: boolean;
}

export type AuthMode = 'merchant' | 'none' | 'admin';

declare module 'fastify' {
  interface FastifyRequest {
    lang: Lang;
    principal: Principal | undefined;
    idempotency: IdempotencyContext | undefined;
    /** The JSON body's text had no \u escape (set by routes that see the raw bytes): see checkInput. */
    bodyTextStorable: boolean;
    /** SHA-256 of the body's bytes, hashed while they arrived (config.rawFingerprintMinBytes). */
    rawBodySha256: string | undefined;
  }
  interface FastifyContextConfig {
    /** Who may call: a merchant's access token (default), nobody in particular, or the operator. */
    auth?: AuthMode;
    /** Honour X-Idempotency-Key (product.md §4). */
    idempotent?: boolean;
    /**
     * Changes nothing (a POST that reads, as the gateway's lists are): reads from a replica, and
     * does not hold the merchant's next reads on the primary as a write does (db/replicas.ts).
     */
    readOnly?: boolean;
    /**
     * A keyed body that declares at least this many bytes is fingerprinted by its bytes, hashed
     * while it arrives, instead of in canonical form after parsing (http/idempotency.ts).
     */
    rawFingerprintMinBytes?: number;
    /** Set by the pipeline: renames differently-cased keys to the schema's names. */
    normalize?: { body?: (value: unknown) => void; query?: (value: unknown) => void };
  }
}

/**
 * What route files receive: the dependencies, and the per-process services modules add for their
 * routes. http/ knows no module: each module declares its members in its index.ts
 * (`declare module '../../http/types.ts' { interface RouteContext { … } }`), and the composition
 * root (src/composition.ts) builds the whole context, so a member no one provides is a type error.
 */
export interface RouteContext {
  deps: Deps;
}

export type RouteModule = (app: App, ctx: RouteContext) => void;
