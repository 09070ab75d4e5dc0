import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { type LazyAgent, lazyAgent } from "./undici.ts";

/**
 * Server-side request forgery guard for forwarding URLs. In production a forwarding URL must not
 * reach the service's own network: loopback, private, link-local, CGNAT, unique-local, multicast,
 * reserved, cloud metadata, and IPv4 addresses smuggled inside IPv6 (mapped, NAT64, 6to4, Teredo).
 *
 * Checked twice: when the settings are saved (a clear BAD_USER_INPUT for the operator) and when a
 * delivery connects — `guardedLookup` is the resolver of the delivery's HTTP agent, so the address
 * that is checked is the address that is dialled (DNS rebinding cannot swap it in between).
 */

/** ipaddr.js range names that are public, routable unicast. Anything else is refused. */
const ALLOWED_RANGES = new Set(["unicast"]);

const METADATA = ["169.254.169.254", "fd00:ec2::254", "100.100.100.200", "192.0.0.192"];

/**
 * The deprecated IPv4-compatible block (RFC 4291 §2.5.5.1): `[::127.0.0.1]` is written by URL
 * parsers as `[::7f00:1]`, which ipaddr.js calls plain unicast. `::` and `::1` are in it too but
 * keep their own, clearer names below.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/** Why an address may not be dialled, or undefined when it may. */
export function blockedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return "not an IP address";
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6") {
    const range = (parsed as ipaddr.IPv6).range();
    // No public server needs them, and each reaches an IPv4 target in disguise: ::ffff:0:0/96
    // mapped, ::/96 compatible, ::ffff:0:0:0/96 translated, 64:ff9b::/96 and 64:ff9b:1::/48 NAT64,
    // 2002::/16 6to4, 2001::/32 Teredo. Refused whole, whatever IPv4 address they carry.
    if (range === "ipv4Mapped") return "IPv4-mapped IPv6 address";
    if (range !== "unspecified" && range !== "loopback" && parsed.match(IPV4_COMPATIBLE)) return "IPv4-compatible IPv6 address (embeds IPv4)";
    if (range === "rfc6052" || range === "6to4" || range === "teredo" || range === "rfc6145") return `IPv6 ${range} address (embeds IPv4)`;
  }
  const normalized = parsed.toNormalizedString();
  if (METADATA.some((m) => ipaddr.parse(m).toNormalizedString() === normalized)) return "cloud metadata endpoint";
  const range = parsed.range();
  if (!ALLOWED_RANGES.has(range)) return `${range} address`;
  return undefined;
}

/**
 * What operators and members are told, and all they are told: which internal address a name
 * resolves to, and what kind it is, is a map of the service's network. The details (`host`,
 * `address`, `reason`) stay on the error for the service's own logs.
 */
export const REFUSED_PRIVATE_ADDRESS = "refused: private address";

export class ForbiddenAddressError extends Error {
  readonly code = "EFORBIDDENADDRESS";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(REFUSED_PRIVATE_ADDRESS);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for net.connect / undici's `connect.lookup`: resolves, refuses when
 * any resolved address is blocked, and answers with exactly the addresses it checked.
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void {
  const opts = typeof options === "number" ? { family: options } : (options ?? {});
  dnsLookup(hostname, { family: opts.family ?? 0, all: true }, (error, addresses) => {
    if (error) return callback(error, opts.all ? [] : "", 0);
    for (const { address } of addresses) {
      const reason = blockedAddressReason(address);
      if (reason) return callback(new ForbiddenAddressError(hostname, address, reason) as NodeJS.ErrnoException, opts.all ? [] : "", 0);
    }
    if (opts.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/**
 * Resolves a URL's host and returns why it is refused — for the caller, REFUSED_PRIVATE_ADDRESS and
 * nothing about what the name resolved to — or undefined when every address is public.
 */
export async function checkUrlTarget(url: URL): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return blockedAddressReason(host) ? REFUSED_PRIVATE_ADDRESS : undefined;
  return new Promise((resolve) => {
    guardedLookup(host, { all: true }, (error) => {
      if (!error) return resolve(undefined);
      if (error instanceof ForbiddenAddressError) return resolve(REFUSED_PRIVATE_ADDRESS);
      resolve(`${host} could not be resolved`);
    });
  });
}

/**
 * The HTTP agent for a host a tenant names (a WooCommerce store, `params[store]`): every socket is
 * dialled to the address `guardedLookup` checked — one lookup, no second one a rebinding name could
 * answer differently — and serves one request only, so no pooled keep-alive socket outlives its
 * check. The delivery sender's pattern (src/delivery/send.ts), for the proxy, subscription calls
 * and the connect form's credential test. An IP literal is never looked up: `refusedLiteral` judges it.
 * Its `fetch` holds nothing between calls; a refused address rejects like any connection error, and
 * `refusedByGuard` tells it apart.
 */
export function createTenantHostAgent(timeoutMs: number): LazyAgent {
  return lazyAgent({ connect: { lookup: guardedLookup as never, timeout: timeoutMs }, maxRequestsPerClient: 1, keepAliveTimeout: 1_000 });
}

/** REFUSED_PRIVATE_ADDRESS when the URL's host is a blocked IP literal (net.connect skips the resolver for those). */
export function refusedLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return isIP(host) && blockedAddressReason(host) ? REFUSED_PRIVATE_ADDRESS : undefined;
}

/** Whether a failed call was refused by the guard (its error, or the cause fetch wraps it in). */
export function refusedByGuard(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.code === "EFORBIDDENADDRESS") return true;
  }
  return false;
}
