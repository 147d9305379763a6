import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an address; IPv4-mapped IPv6 (::ffff:1.2.3.4) becomes plain IPv4. */
export function parseAddress(text: string): Address | null {
  try {
    const address = ipaddr.parse(text.trim().replace(/^\[|\]$/g, ''));
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      return (address as ipaddr.IPv6).toIPv4Address();
    }
    return address;
  } catch {
    return null;
  }
}

/** Accepts `10.0.0.0/8`, `2001:db8::/32` or a bare address (a /32 or /128). Returns an error text or null. */
export function cidrProblem(cidr: string): string | null {
  try {
    if (cidr.includes('/')) ipaddr.parseCIDR(cidr);
    else ipaddr.parse(cidr);
    return null;
  } catch {
    return `"${cidr}" is not an IP address or CIDR range`;
  }
}

export function addressAllowed(addressText: string, allowlist: readonly string[]): boolean {
  const address = parseAddress(addressText);
  if (address === null) return false;
  for (const entry of allowlist) {
    try {
      if (entry.includes('/')) {
        const [range, bits] = ipaddr.parseCIDR(entry);
        const comparable = range.kind() === 'ipv4' && address.kind() === 'ipv6' ? null : address;
        if (comparable !== null && comparable.kind() === range.kind() && comparable.match([range, bits] as never)) return true;
      } else {
        const single = parseAddress(entry);
        if (single !== null && single.kind() === address.kind() && single.toNormalizedString() === address.toNormalizedString()) {
          return true;
        }
      }
    } catch {
      // An unparsable entry never matches; entries are validated when keys are created.
    }
  }
  return false;
}
