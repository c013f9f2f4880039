// Bounds on the connections one process holds. Each is a file descriptor: without a bound, 10,000
// idle sockets from one client used up the process's descriptors, and with them its database
// connections (/health/ready said the database was down for as long as the sockets stayed open).
// Past MAX_CONNECTIONS Node closes a new connection as soon as it accepts it; past
// MAX_CONNECTIONS_PER_ADDRESS this listener does, so one client cannot take every connection
// either. A request's headers must arrive within HEADERS_TIMEOUT_MS (Node's headersTimeout, set in
// app.ts); Node starts that clock at a request's first byte, so a connection that sends nothing
// gets the same time here to start one (before, the 60 s inactivity timeout held it).
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import client from 'prom-client';

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  headersTimeoutMs: number;
}

/**
 * The key a client's connections count under: its IPv4 address, or the /64 of its IPv6 address
 * (a host is given a whole /64, so each of its addresses is its own to use). An IPv4-mapped IPv6
 * address counts as the IPv4 address.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return '';
  const bare = address.split('%')[0].toLowerCase();
  if (!bare.includes(':')) return bare;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1];
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  // An IPv4 tail (64:ff9b::1.2.3.4) fills two groups.
  const tailWidth = tailGroups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailWidth)).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

/** Applies the limits to `server`; refusals are counted in `registry` (http_connections_refused_total). */
export function limitConnections(server: Server, limits: ConnectionLimits, registry: client.Registry): void {
  const refused = new client.Counter({
    name: 'http_connections_refused_total',
    help: 'Connections closed as soon as they were accepted: too many open in the process, or from one address.',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  server.maxConnections = limits.maxConnections;
  server.on('drop', () => refused.inc({ limit: 'process' }));
  const open = new Map<string, number>();
  const started = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    const count = open.get(key) ?? 0;
    if (count >= limits.maxConnectionsPerAddress) {
      refused.inc({ limit: 'address' });
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    // Replaces the inactivity timeout Node just set (server.timeout), until the first request.
    socket.setTimeout(limits.headersTimeoutMs);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
  // Ahead of the app's own listener: set before the answer, so Node's keep-alive timeout, set once
  // the answer is sent, is not overwritten.
  server.prependListener('request', (request: IncomingMessage) => {
    const socket = request.socket;
    if (started.has(socket)) return;
    started.add(socket);
    // Its headers came: from now on the inactivity and request timeouts of app.ts apply.
    socket.setTimeout(server.timeout);
  });
}
