import { isIPv4, isIPv6 } from 'node:net';

/**
 * What counts as one client for the bounds per address (logins in flight, passkey ceremonies,
 * the listeners' connection caps): an IPv4 address, or an IPv6 /64 — one subscriber's prefix,
 * within which an attacker can pick addresses freely. An IPv4-mapped IPv6 address is its IPv4
 * address.
 */
export function sourceOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
