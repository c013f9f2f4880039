// Callback URLs (product.md §11): absolute http(s), no credentials. In production mode, targets
// on private, loopback, link-local or otherwise internal addresses are refused (SSRF) — at
// registration, and again when each delivery connects, so a DNS answer that changes after
// registration (rebinding) cannot reach inside either. Sandbox mode allows them: integrators
// point webhooks at localhost.
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { AppError } from '../../http/errors.ts';

export const CALLBACK_URL_MAX_LENGTH = 2048;

const INTERNAL = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // :: and ::1, and the deprecated IPv4-compatible form ::a.b.c.d
  ['::', 96],
  // NAT64 and 6to4 embed an IPv4 address that may be internal
  ['64:ff9b::', 96],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family === 6) {
    // IPv4-mapped (::ffff:10.0.0.1) is the IPv4 address it maps.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? INTERNAL.check(mapped[1], 'ipv4') : INTERNAL.check(address, 'ipv6');
  }
  return true; // not an address at all: refuse rather than guess
}

/** The URL if it is an acceptable callback target by its form; otherwise a 400. */
export function parseCallbackUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw callbackError();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.hostname === '') throw callbackError();
  return url;
}

function callbackError(): AppError {
  return new AppError('validation', 'detail.callbackUrl', {}, { fieldErrors: [{ key: 'detail.callbackUrl', params: {} }] });
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Production mode: refuses a URL whose host is, or resolves to, an internal address. */
export async function assertPublicTarget(url: URL): Promise<void> {
  const host = hostOf(url);
  const addresses = net.isIP(host) ? [host] : await dns.promises.lookup(host, { all: true }).then((r) => r.map((a) => a.address), () => [] as string[]);
  // An unresolvable name is allowed at registration (it may exist later); delivery checks again.
  if (addresses.some(isInternalAddress)) throw new AppError('validation', 'detail.callbackPrivate', { host: host.slice(0, 100) }, { fieldErrors: [{ key: 'detail.callbackPrivate', params: { host: host.slice(0, 100) } }] });
}

/** A `lookup` for outgoing connections that fails on internal addresses (delivery-time check). */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const internal = list.find((a) => isInternalAddress(a.address));
    if (internal || list.length === 0) {
      const refused = Object.assign(new Error(`refused: ${hostname} resolves to an internal address`), { code: 'EINTERNALTARGET' });
      return callback(refused, '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
