// Outbound connections to addresses a stranger chose (client ID metadata documents): only to public
// addresses. The check sits where the connection is made — the name resolution of the connection
// itself (an undici connector with its own `lookup`) — so a host name that resolves to a public
// address when checked and to a private one when connected (DNS rebinding) cannot slip through:
// there is no second resolution. Every resolved address must be public, else the connection fails
// before a socket is opened. The ranges are Node's own `net.BlockList`.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';

/**
 * IPv4 ranges that are not a public server: IANA's special-purpose registry (not globally reachable), multicast,
 * reserved.
 */
const SPECIAL_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services: 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

/**
 * IPv6: only global unicast (2000::/3) is public — everything outside it (unspecified, loopback,
 * unique-local fc00::/7, link-local fe80::/10, site-local, multicast ff00::/8, discard 100::/64,
 * NAT64's local-use 64:ff9b:1::/48, …) is refused — except the two forms that carry an IPv4
 * address, which is checked instead: IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d).
 */
const GLOBAL_IPV6: ReadonlyArray<readonly [string, number]> = [['2000::', 3]];
/** Within global unicast, ranges that are not a public server. */
const SPECIAL_IPV6: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID, …)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (deprecated; embeds an IPv4 address of any kind)
  ['3fff::', 20], // documentation
];

function blockList(ranges: ReadonlyArray<readonly [string, number]>, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

const specialIpv4 = blockList(SPECIAL_IPV4, 'ipv4');
const globalIpv6 = blockList(GLOBAL_IPV6, 'ipv6');
const specialIpv6 = blockList(SPECIAL_IPV6, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const gap = text.indexOf('::');
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const groups = gap < 0 ? part(text) : [...part(text.slice(0, gap)), ...part(text.slice(gap + 2))];
  if (gap >= 0) groups.splice(part(text.slice(0, gap)).length, 0, ...Array<string>(8 - groups.length).fill('0'));
  return groups.map((g) => Number.parseInt(g, 16));
}

/** The IPv4 address an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) IPv6 address carries. */
function embeddedIpv4(g: readonly number[]): string | undefined {
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !nat64) return undefined;
  return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.');
}

/** Whether an IP address may be connected to on a stranger's behalf: a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, ''); // an IPv6 zone (fe80::1%eth0) names a local interface anyway
  switch (isIP(bare)) {
    case 4:
      return !specialIpv4.check(bare, 'ipv4');
    case 6: {
      const v4 = embeddedIpv4(ipv6Groups(bare));
      if (v4 !== undefined) return isPublicAddress(v4);
      return globalIpv6.check(bare, 'ipv6') && !specialIpv6.check(bare, 'ipv6');
    }
    default:
      return false;
  }
}

/** A name resolution that answers every address (`dns.lookup` with `all: true`; tests give a fake). */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface PublicEgressOptions {
  /** Name resolution (default `dns.lookup`). */
  readonly resolve?: ResolveAll;
  /** Which addresses may be connected to (default `isPublicAddress`; tests widen it to reach a local server). */
  readonly addressAllowed?: (address: string) => boolean;
  /** Connect deadline, ms. */
  readonly connectTimeoutMs?: number;
}

/** The error of a connection refused for its address; `code` ERR_NON_PUBLIC_ADDRESS. */
function refused(hostname: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    `${hostname} resolves to an address that is not public; not connecting`,
  );
  error.code = 'ERR_NON_PUBLIC_ADDRESS';
  return error;
}

const defaultResolve: ResolveAll = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * The `lookup` of a connection: resolves the name once, and answers its addresses only when every
 * one is allowed — otherwise an error, and the socket never connects.
 */
export function guardedLookup(options: PublicEgressOptions = {}): LookupFunction {
  const resolve = options.resolve ?? defaultResolve;
  const allowed = options.addressAllowed ?? isPublicAddress;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (!addresses?.length) {
        const none: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
        none.code = 'ENOTFOUND';
        return callback(none, '');
      }
      if (!addresses.every((a) => allowed(a.address))) return callback(refused(hostname), '');
      if (lookupOptions.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * An undici connector for public addresses only: a host name goes through `guardedLookup`; an IP
 * literal (which `net.connect` does not look up) is checked directly.
 */
export function publicConnector(options: PublicEgressOptions = {}): buildConnector.connector {
  const allowed = options.addressAllowed ?? isPublicAddress;
  const connect = buildConnector({
    timeout: options.connectTimeoutMs ?? 5000,
    allowH2: false,
    lookup: guardedLookup(options),
  });
  return (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !allowed(host)) {
      callback(refused(host), null);
      return;
    }
    connect(connectOptions, callback);
  };
}

/** An undici Agent whose every connection goes to a public address only. */
export function publicEgressAgent(options: PublicEgressOptions = {}): Agent {
  return new Agent({ connect: publicConnector(options), keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
}
