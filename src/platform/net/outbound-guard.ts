import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../errors/api-error.js';
import { addressAllowed } from './ip-allowlist.js';

/**
 * Whether an address may be reached by outbound fetches (audio_url, probes, webhooks).
 * Only globally routable unicast addresses pass; loopback, private, link-local (incl.
 * 169.254.169.254 metadata), unique-local, CGNAT, multicast, reserved and unspecified do not.
 * IPv4 embedded in IPv6 (mapped, IPv4-compatible) is judged as the IPv4 address; 6to4, Teredo and
 * NAT64 forms are refused.
 */
export function isPublicAddress(text: string): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(text.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
    // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291 but still routed by some stacks to the
    // IPv4 address): judged as that address. `::` and `::1` stay their own (unspecified, loopback).
    const parts = v6.parts;
    if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1)) {
      return isPublicAddress(`${parts[6]! >> 8}.${parts[6]! & 255}.${parts[7]! >> 8}.${parts[7]! & 255}`);
    }
    const range = v6.range();
    if (range === 'rfc6052' || range === 'rfc6145' || range === '6to4' || range === 'teredo') return false;
    return range === 'unicast';
  }
  return (address as ipaddr.IPv4).range() === 'unicast';
}

export class OutboundGuard {
  /**
   * @param allowPrivateNetwork lets every address through (ALLOW_PRIVATE_NETWORK).
   * @param allowedRanges CIDR ranges reachable even when private addresses are refused
   *   (OUTBOUND_ALLOWED_CIDRS), e.g. an internal object store.
   */
  constructor(
    readonly allowPrivateNetwork: boolean,
    readonly allowedRanges: readonly string[] = [],
  ) {}

  /** Said with every refusal: which settings let a server reach such addresses (local testing). */
  static readonly HOW_TO_ALLOW =
    'To fetch from your own machine or network while testing, the server operator sets ALLOW_PRIVATE_NETWORK=true (every address) or OUTBOUND_ALLOWED_CIDRS (chosen ranges, e.g. 127.0.0.0/8).';

  addressAllowed(address: string): boolean {
    return this.allowPrivateNetwork || isPublicAddress(address) || (this.allowedRanges.length > 0 && addressAllowed(address, this.allowedRanges));
  }

  /** Throws url_not_allowed when a literal-IP host is not allowed. Names are checked at lookup. */
  assertHostAllowed(url: URL): void {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (ipaddr.isValid(host) && !this.addressAllowed(host)) {
      throw new ApiError('url_not_allowed', {
        message: `The URL's host ${host} is a private, loopback or link-local address; this server does not fetch those. ${OutboundGuard.HOW_TO_ALLOW}`,
        param: 'url',
      });
    }
  }

  /**
   * A DNS lookup for sockets that refuses non-public answers. Used as the `lookup` option of
   * every outbound connection, so the address checked is the address connected to (no
   * window for DNS rebinding between check and connect).
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        (callback as (e: Error | null, a: string | LookupAddress[], f?: number) => void)(error, '', 0);
        return;
      }
      const allowed = addresses.filter((a) => this.addressAllowed(a.address));
      if (allowed.length === 0) {
        const refused = new ApiError('url_not_allowed', {
          message: `The host ${hostname} resolves only to private, loopback or link-local addresses; this server does not fetch those. ${OutboundGuard.HOW_TO_ALLOW}`,
          param: 'url',
        });
        (callback as (e: Error | null, a: string | LookupAddress[], f?: number) => void)(refused, '', 0);
        return;
      }
      if ((options as { all?: boolean }).all) {
        (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
      } else {
        const first = allowed[0]!;
        (callback as (e: null, a: string, f: number) => void)(null, first.address, first.family);
      }
    });
  };
}
