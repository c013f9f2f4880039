// Which host of DATABASE_URL's list the pool's new connections go to (db/hosts.ts, db/pool.ts).
// node-postgres takes one host; libpq's behaviour (try the hosts in turn, keep the one that is
// writable under target_session_attrs=read-write) is rebuilt here for a pool: connections go to the
// host last found good; when one cannot be had there (refused, dropped, or a standby where the pool
// wants the primary), a search probes the hosts in the background until one answers as wanted, and
// new connections go there. Requests meanwhile fail fast and are answered 503 with Retry-After
// (db/errors.ts isDatabaseUnavailable); none waits on a host that is gone.
import pg from 'pg';
import { hostLabel, parseDatabaseHosts, type DatabaseHosts, type HostPort } from './hosts.ts';

const PROBE_TIMEOUT_MS = 2_000;
// Short: a probe is one connection attempt per host, and every pause is time the service answers 503.
const SEARCH_PAUSE_MS = { first: 50, max: 250 };

/** Thrown by a new connection that reached a standby where the pool wants the writable server. */
export class StandbyError extends Error {
  readonly code = 'ESTANDBY';
  constructor(host: HostPort) {
    super(`${hostLabel(host)} is a standby (in recovery): not writable`);
  }
}

export class PrimaryFinder {
  private index = 0;
  private searching: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly target: DatabaseHosts,
    private readonly onSwitch: (message: string) => void = () => undefined,
  ) {}

  current(): HostPort {
    return this.target.hosts[this.index];
  }

  urlFor(host: HostPort): string {
    return this.target.urlFor(host);
  }

  /** A connection to `host` could not be had or kept: look for another, once, in the background. */
  lost(host: HostPort): void {
    if (this.stopped || this.searching || this.target.hosts.length < 2 || host !== this.current()) return;
    this.searching = this.search().finally(() => {
      this.searching = undefined;
    });
  }

  /** The pool's onConnect under read-write: a standby is refused (and another host looked for). */
  async refuseStandby(client: pg.Client): Promise<void> {
    const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
    if (!rows[0].standby) return;
    const host = hostOfClient.get(client) ?? this.current();
    this.lost(host);
    throw new StandbyError(host);
  }

  stop(): void {
    this.stopped = true;
  }

  private async search(): Promise<void> {
    const hosts = this.target.hosts;
    for (let round = 0; !this.stopped; round++) {
      // The others first: the current host has just failed.
      for (let step = 1; step <= hosts.length; step++) {
        const i = (this.index + step) % hosts.length;
        if (await this.answers(hosts[i])) {
          if (i !== this.index) this.onSwitch(`database: new connections go to ${hostLabel(hosts[i])} (was ${hostLabel(this.current())})`);
          this.index = i;
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(SEARCH_PAUSE_MS.first * 2 ** round, SEARCH_PAUSE_MS.max)));
    }
  }

  /** Whether `host` takes a connection now, and is writable where that is wanted. */
  private async answers(host: HostPort): Promise<boolean> {
    try {
      const client = await connectHost(this.target, host, { connectionTimeoutMillis: PROBE_TIMEOUT_MS, application_name: 'onekhusa-sandbox probe' });
      await client.end().catch(() => undefined);
      return true;
    } catch {
      return false;
    }
  }
}

const hostOfClient = new WeakMap<pg.Client, HostPort>();

/**
 * The pool's Client class: each new client connects to the finder's current host and reports a
 * failed connection to it. With `unnamedStatements` (a transaction pooler), a query's `name` is
 * dropped: a named prepared statement lives on one server connection, and the pooler hands the
 * next transaction another ("prepared statement … already exists" / "does not exist").
 */
export function followingClient(finder: PrimaryFinder, options: { unnamedStatements: boolean }): typeof pg.Client {
  return class FollowingClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      const host = finder.current();
      super({ ...(typeof config === 'string' ? {} : config), connectionString: finder.urlFor(host) });
      hostOfClient.set(this, host);
    }

    // Both forms of pg's connect: the pool passes a callback.
    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error) => void): void;
    override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
      const host = hostOfClient.get(this)!;
      if (callback) {
        super.connect((err: Error) => {
          if (err) finder.lost(host);
          callback(err);
        });
        return;
      }
      return super.connect().catch((err: unknown) => {
        finder.lost(host);
        throw err;
      });
    }

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's query has a dozen overloads; this only rewrites a config object
    override query(config: any, ...rest: any[]): any {
      if (options.unnamedStatements && config && typeof config === 'object' && typeof config.text === 'string' && config.name !== undefined && typeof config.submit !== 'function') {
        const { name: _name, ...unnamed } = config;
        return super.query(unnamed, ...(rest as []));
      }
      return super.query(config, ...(rest as []));
    }
  } as unknown as typeof pg.Client;
}

/**
 * One client on `url` as libpq would connect it: the hosts in turn, the first that takes the
 * connection (and, under target_session_attrs=read-write, is not a standby). For the commands that
 * work on one connection (the CLI's). Throws the last host's error.
 */
export async function connectClient(url: string, config: Omit<pg.ClientConfig, 'connectionString'> = {}): Promise<pg.Client> {
  const target = parseDatabaseHosts(url);
  let lastError: unknown;
  for (const host of target.hosts) {
    try {
      return await connectHost(target, host, config);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

/** A client connected to `host`, refused (and closed) when it is a standby where the target wants read-write. */
async function connectHost(target: DatabaseHosts, host: HostPort, config: Omit<pg.ClientConfig, 'connectionString'>): Promise<pg.Client> {
  const client = new pg.Client({ ...config, connectionString: target.urlFor(host) });
  client.on('error', () => undefined);
  try {
    await client.connect();
    if (target.targetSessionAttrs === 'read-write' && (await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')).rows[0].standby) throw new StandbyError(host);
    return client;
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
}
