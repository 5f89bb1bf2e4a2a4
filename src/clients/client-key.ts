import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What every client whose address cannot be read counts as: one client, not a new one each time. */
export const UNREADABLE_CLIENT = 'unreadable-address';

/** The IPv6 network that is one client by default: what one host commonly holds whole. */
export const DEFAULT_IPV6_PREFIX = 64;

/**
 * Who a client is, for the rate limit and for counting distinct clients in the demand signal: its
 * IPv4 address, or the network of its IPv6 address (`ipv6Prefix` bits: the rate limit's /64 by
 * default, the demand signal's /56, both set by the operator). One IPv6 host commonly holds a
 * whole /64 (privacy addresses rotate inside it) and a home often a /56; counted by address they
 * would be many clients, each with a fresh rate-limit budget. A port or brackets (a proxy may
 * forward "203.0.113.5:51000" or "[2001:db8::1]:443") are no part of the client, or each
 * connection would be a new one; anything that is no address at all is one shared client.
 */
export function clientKey (address: string, ipv6Prefix: number = DEFAULT_IPV6_PREFIX): string {
  const bare = withoutPort(address.trim());
  // node:net's isIP, not ipaddr.js's isValid: that one also reads "127.1" and "0x7f.1" as addresses.
  const family = isIP(bare);
  if (family === 0) return UNREADABLE_CLIENT;
  // The common case, on every request: node:net has read it as dotted decimal already.
  if (family === 4) return bare;
  const v6 = ipaddr.IPv6.parse(bare);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${v6.toNormalizedString()}/${ipv6Prefix}`);
  return `${network.toString()}/${ipv6Prefix}`;
}

/** "[v6]:port" and "[v6]" to v6; "v4:port" to v4; anything else as it is. */
function withoutPort (address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed !== null) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(address);
  return v4 === null ? address : v4[1]!;
}
