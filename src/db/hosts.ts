// DATABASE_URL with several hosts, as libpq takes it (postgres://h1:5432,h2:5433/db?
// target_session_attrs=read-write): node-postgres connects to one host only, so the hosts are read
// here and the pool is given one of them at a time (db/pool.ts, PrimaryFinder). Only what libpq
// means is accepted: a host list, and target_session_attrs `any` (the first that answers) or
// `read-write` / `primary` (the one that is not in recovery).

export interface HostPort {
  host: string;
  port: number;
}

export type TargetSessionAttrs = 'any' | 'read-write';

export interface DatabaseHosts {
  hosts: HostPort[];
  targetSessionAttrs: TargetSessionAttrs;
  /** The URL for one of the hosts, with the list and target_session_attrs taken out (what pg reads). */
  urlFor(host: HostPort): string;
}

const DEFAULT_PORT = 5432;
const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;

/** Throws an Error whose message names the problem (config.ts turns it into a ConfigError). */
export function parseDatabaseHosts(url: string): DatabaseHosts {
  const parts = URL_PARTS.exec(url);
  if (!parts) throw new Error('is not a postgres:// URL');
  const [, scheme, userInfo = '', hostList, rest] = parts;
  const hosts = hostList === '' ? [{ host: 'localhost', port: DEFAULT_PORT }] : hostList.split(',').map(hostPort);
  const query = new URLSearchParams(rest.includes('?') ? rest.slice(rest.indexOf('?') + 1).replace(/#.*$/, '') : '');
  const attrs = query.get('target_session_attrs') ?? 'any';
  if (!['any', 'read-write', 'primary'].includes(attrs)) throw new Error(`target_session_attrs=${attrs} is not supported (any, read-write or primary)`);
  query.delete('target_session_attrs');
  const path = rest.includes('?') ? rest.slice(0, rest.indexOf('?')) : rest;
  const search = query.toString();
  return {
    hosts,
    targetSessionAttrs: attrs === 'any' ? 'any' : 'read-write',
    urlFor: (h) => `${scheme}${userInfo}${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}${path}${search ? `?${search}` : ''}`,
  };
}

function hostPort(text: string): HostPort {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text.trim());
  if (!m) throw new Error(`has a host that cannot be read: "${text}"`);
  const port = m[3] === undefined ? DEFAULT_PORT : Number(m[3]);
  if (port < 1 || port > 65535) throw new Error(`has a port out of range: "${text}"`);
  return { host: decodeURIComponent(m[1] ?? m[2]), port };
}

export function hostLabel(h: HostPort): string {
  return `${h.host}:${h.port}`;
}
