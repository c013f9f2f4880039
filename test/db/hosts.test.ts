// DATABASE_URL with several hosts, as libpq reads it (src/db/hosts.ts), and the errors that mean
// "no database right now" (src/db/errors.ts isDatabaseUnavailable): those answer 503, never 500.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { isDatabaseUnavailable } from '../../src/db/errors.ts';
import { parseDatabaseHosts } from '../../src/db/hosts.ts';
import { StandbyError } from '../../src/db/primary-finder.ts';

describe('parseDatabaseHosts', () => {
  it('reads a host list with ports, and target_session_attrs, and gives a one-host URL for each', () => {
    const t = parseDatabaseHosts('postgres://svc:p%40ss@10.0.0.1:5433,db2,[::1]:6000/pay?target_session_attrs=read-write&sslmode=disable');
    expect(t.hosts).toEqual([
      { host: '10.0.0.1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(t.targetSessionAttrs).toBe('read-write');
    expect(t.urlFor(t.hosts[0])).toBe('postgres://svc:p%40ss@10.0.0.1:5433/pay?sslmode=disable');
    expect(t.urlFor(t.hosts[2])).toBe('postgres://svc:p%40ss@[::1]:6000/pay?sslmode=disable');
  });

  it('takes one host as before, primary as read-write, and any by default', () => {
    expect(parseDatabaseHosts('postgresql://localhost/x').targetSessionAttrs).toBe('any');
    expect(parseDatabaseHosts('postgresql://localhost/x').urlFor({ host: 'localhost', port: 5432 })).toBe('postgresql://localhost:5432/x');
    expect(parseDatabaseHosts('postgres://a,b/x?target_session_attrs=primary').targetSessionAttrs).toBe('read-write');
  });

  it('refuses what libpq would not take, and config.ts names the variable without the password', () => {
    expect(() => parseDatabaseHosts('postgres://a,b/x?target_session_attrs=standby')).toThrow(/target_session_attrs=standby is not supported/);
    expect(() => parseDatabaseHosts('postgres://a:99999/x')).toThrow(/port out of range/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u:secret@a,b:0/x' })).toThrow(ConfigError);
    try {
      loadConfig({ DATABASE_URL: 'postgres://u:secret@a,b:0/x' });
    } catch (err) {
      expect((err as Error).message).toMatch(/^DATABASE_URL has a port out of range/);
      expect((err as Error).message).not.toContain('secret');
    }
  });

  it('config: a pooler needs the direct URL; replicas are a list; the lag bound has a default', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a/x', DATABASE_POOLER: 'transaction' })).toThrow(/DATABASE_DIRECT_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a/x', DATABASE_POOLER: 'session' })).toThrow(/DATABASE_POOLER must be "transaction"/);
    const c = loadConfig({ DATABASE_URL: 'postgres://a/x', DATABASE_REPLICA_URL: 'postgres://r1/x, postgres://r2:5433/x' });
    expect(c.databaseReplicaUrls).toEqual(['postgres://r1/x', 'postgres://r2:5433/x']);
    expect(c.databaseReplicaMaxLagSeconds).toBe(10);
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgres://r1/x' })).toThrow(/needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://a/x', DATABASE_REPLICA_URL: 'postgres://r1/x http://r2/x' })).toThrow(/DATABASE_REPLICA_URL \(URL 2\) must start with postgres/);
  });
});

describe('isDatabaseUnavailable', () => {
  it('knows a refused or dropped connection, a server shutting down, a standby, and a connect time-out', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P03', '08006', '25006']) expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), code).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout', { cause: new Error('x') }))).toBe(true);
    expect(isDatabaseUnavailable(new StandbyError({ host: 'h', port: 1 }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('y'), { code: '57P01' }) }))).toBe(true);
  });

  it('does not take a refusal of the request itself for an outage', () => {
    for (const code of ['23505', '40001', '57014', '22P02', undefined]) expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code })), String(code)).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
