import { isIP, isIPv6 } from 'node:net';

/** What every client whose address cannot be read counts as: one client, not a new one each time. */
export const UNREADABLE_CLIENT = 'unreadable-address';

/**
 * Who a client is, for the rate limit and for counting distinct clients in the demand signal: its
 * IPv4 address, or the /64 network of its IPv6 address. One IPv6 host commonly holds a whole /64
 * (privacy addresses rotate inside it) and could otherwise count as many clients, each with a
 * fresh rate-limit budget. A port or brackets (a proxy may forward "203.0.113.5:51000" or
 * "[2001:db8::1]:443") are no part of the client, or each connection would be a new one; anything
 * that is no address at all is one shared client.
 */
export function clientKey(address: string): string {
  const bare = withoutPort(address.trim());
  if (isIP(bare) === 0) return UNREADABLE_CLIENT;
  if (!isIPv6(bare)) return bare;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped !== null) return mapped[1]!;
  const [head = '', tail = ''] = bare.toLowerCase().split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = bare.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = bare.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** "[v6]:port" and "[v6]" to v6; "v4:port" to v4; anything else as it is. */
function withoutPort(address: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed !== null) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(address);
  return v4 === null ? address : v4[1]!;
}
