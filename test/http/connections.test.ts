// Connections are bounded (issue 13, item 4), over real sockets on 127.0.0.1. Loopback is a /8 on
// Linux, so a client bound to 127.0.0.2 is another address: the "other clients" of the issue.
// Small caps (50 per address, 200 in all) stand in for the defaults (256, 4096): the issue's
// 10,000 idle sockets from one address ran the process out of file descriptors, and its database
// connections with them.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey } from '../../src/http/connections.ts';
import { BASE, newMerchant, startTestApp, until, type TestApp, type TestMerchant } from '../helpers.ts';

const PER_ADDRESS = 50;
const TOTAL = 200;

interface Held {
  socket: net.Socket;
  closed: boolean;
}

/** Opens `count` sockets to `port` from `localAddress`, `parallel` at a time, each sending `send` if given, then nothing. */
async function hold(port: number, localAddress: string, count: number, send?: string, parallel = 100): Promise<Held[]> {
  const held: Held[] = [];
  for (let from = 0; from < count; from += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count - from) }, async () => {
        const socket = net.connect({ port, host: '127.0.0.1', localAddress });
        const entry: Held = { socket, closed: false };
        held.push(entry);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          entry.closed = true;
        });
        await new Promise<void>((resolve) => {
          socket.once('connect', () => {
            if (send) socket.write(send);
            resolve();
          });
          socket.once('close', () => resolve());
        });
      }),
    );
  }
  return held;
}

const openCount = (held: Held[]) => held.filter((h) => !h.closed).length;
const release = (held: Held[]) => held.forEach((h) => h.socket.destroy());

/** One GET over a new connection from `localAddress`: its status and body, or the error's code. */
function get(port: number, localAddress: string, path: string, headers: Record<string, string> = {}): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, localAddress, headers, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
}

describe('connection caps', () => {
  let t: TestApp;
  let m: TestMerchant;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ MAX_CONNECTIONS: String(TOTAL), MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) });
    m = await newMerchant(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('1,000 idle sockets from one address: it keeps 50, and another address is served (ready, authenticated)', async () => {
    // Half send nothing, half a request line and no end of headers (a slow client's start).
    const idle = await hold(port, '127.0.0.1', 500);
    const halfSent = await hold(port, '127.0.0.1', 500, `GET /health/live HTTP/1.1\r\nHost: x\r\n`);
    const all = [...idle, ...halfSent];
    try {
      await until('the sockets past the cap closed', async () => openCount(all) <= PER_ADDRESS, 10_000, 20, () => `${openCount(all)} open`);
      expect(openCount(all)).toBe(PER_ADDRESS);

      const ready = await get(port, '127.0.0.2', '/health/ready');
      expect(ready).toMatchObject({ status: 200 });
      expect(JSON.parse(ready.body!)).toMatchObject({ status: 'ready', database: 'up' });
      const account = await get(port, '127.0.0.2', `${BASE}/merchants/accounts/get?merchantAccountNumber=${m.merchantAccountNumber}`, m.auth);
      expect(account.status, account.body ?? account.error).toBe(200);
      expect(JSON.parse(account.body!).merchantAccountNumber).toBe(m.merchantAccountNumber);

      // The capped address gets no answer over a new connection while it holds 50 …
      expect((await get(port, '127.0.0.1', '/health/live')).status).toBeUndefined();
      const metrics = await get(port, '127.0.0.2', '/metrics');
      const refused = Number(/^http_connections_refused_total\{limit="address"\} (\d+)$/m.exec(metrics.body ?? '')?.[1]);
      expect(refused).toBeGreaterThanOrEqual(all.length - PER_ADDRESS);
    } finally {
      release(all);
    }
    // … and is served again once it lets them go.
    await until('the capped address served again', async () => (await get(port, '127.0.0.1', '/health/live')).status === 200, 5_000, 50);
  }, 30_000);

  it(`${TOTAL} connections in all: past that a new one is closed whatever its address, until some close`, async () => {
    const held: Held[] = [];
    try {
      for (const address of ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) held.push(...(await hold(port, address, PER_ADDRESS)));
      await until('every held socket accepted', async () => (await connections(t.app.server)) === TOTAL, 5_000, 20);
      expect(openCount(held)).toBe(TOTAL);
      const over = await get(port, '127.0.0.2', '/health/ready');
      expect(over.status).toBeUndefined();
      release(held.slice(0, PER_ADDRESS));
      await until('room again', async () => (await connections(t.app.server)) < TOTAL, 5_000, 20);
      expect((await get(port, '127.0.0.2', '/health/ready')).status).toBe(200);
    } finally {
      release(held);
    }
  }, 30_000);
});

function connections(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((err, count) => (err ? reject(err) : resolve(count))));
}

describe('headers timeout', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ HEADERS_TIMEOUT_MS: '1000' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('closes a socket that sends nothing, and one that never finishes its headers, within about HEADERS_TIMEOUT_MS', async () => {
    const started = Date.now();
    const idle = await hold(port, '127.0.0.1', 1);
    // A header line every 200 ms: never idle, never done.
    const slow = await hold(port, '127.0.0.1', 1, 'GET /health/live HTTP/1.1\r\n');
    const trickle = setInterval(() => slow[0].socket.write('X-Slow: 1\r\n'), 200);
    try {
      // A generous bound: on two loaded cores the server's periodic check of open connections can
      // come late; what matters is that both are closed, and not before the timeout.
      await until('both closed by the server', async () => idle[0].closed && slow[0].closed, 25_000, 20);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      clearInterval(trickle);
      release([...idle, ...slow]);
    }
  }, 40_000);
});

describe('addressKey', () => {
  it('counts IPv4 by address, IPv4-mapped as IPv4, and IPv6 by its /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressKey(undefined)).toBe('');
  });
});
