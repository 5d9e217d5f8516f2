import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import proxyAddr from "proxy-addr";
import { SettingProblem } from "../common/setting-parsers.ts";

/*
 * The respondent's address as the quality gate sees it: the socket's, or, when the peer is one
 * of SYNC_TRUSTED_PROXIES, the nearest address in X-Forwarded-For that is not trusted (express's
 * `trust proxy`, through the same library, proxy-addr). A header from anyone else is ignored,
 * so a client cannot choose the address it is judged by.
 */

/** Decides, per request, which address is the client's. */
export type ClientAddressOf = (request: IncomingMessage) => string;

/**
 * Parses `SYNC_TRUSTED_PROXIES`: a comma list of addresses and CIDR ranges (`10.0.0.0/8`,
 * `::1`), or the names proxy-addr knows (`loopback`, `linklocal`, `uniquelocal`).
 *
 * @throws SettingProblem naming the entry proxy-addr refused.
 */
export function parseTrustedProxies(raw: string): string[] {
  const entries = raw
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) throw new SettingProblem("names no address");
  for (const entry of entries) {
    try {
      proxyAddr.compile(entry);
    } catch {
      throw new SettingProblem(
        `${JSON.stringify(entry)} is not an address, a CIDR range, or loopback/linklocal/uniquelocal`,
      );
    }
  }
  return entries;
}

/** The client address of each request, trusting X-Forwarded-For only from `trustedProxies`. */
export function clientAddressOf(trustedProxies: readonly string[]): ClientAddressOf {
  if (trustedProxies.length === 0) return (request) => canonicalAddress(request.socket.remoteAddress ?? "");
  const trust = proxyAddr.compile([...trustedProxies]);
  return (request) => (request.socket.remoteAddress === undefined ? "" : canonicalAddress(proxyAddr(request, trust)));
}

/**
 * One address, one spelling, so the rules that count by address (velocity-ip) and look it up
 * (geo) see one respondent however a socket, a proxy or a supplier's server wrote it: an IPv6
 * address in RFC 5952's form (lower case, zeros compressed, as the WHATWG URL serialiser writes
 * it), an IPv4 address mapped into IPv6 (`::ffff:203.0.113.7`, `::FFFF:cb00:7107`) as IPv4.
 * Anything else is returned as given.
 *
 * @example
 * ```ts
 * canonicalAddress("::FFFF:203.0.113.7"); // "203.0.113.7"
 * canonicalAddress("2001:DB8:0:0:0:0:0:7"); // "2001:db8::7"
 * ```
 */
export function canonicalAddress(address: string): string {
  if (isIP(address) !== 6) return address;
  let host: string;
  try {
    host = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    // A zone index (`fe80::1%eth0`) is no URL host: its letters are still one case.
    return address.toLowerCase();
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped === null) return host;
  const high = Number.parseInt(mapped[1] ?? "0", 16);
  const low = Number.parseInt(mapped[2] ?? "0", 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * The block a rule that counts by address counts: an IPv4 address itself, an IPv6 address's /64
 * (`2001:db8:5:6::/64`). One IPv6 subscriber holds a /64 at least and its devices rotate privacy
 * addresses inside it (RFC 4941), so counting single IPv6 addresses limits no one. Spelt as
 * {@link canonicalAddress} spells it; anything that is not an IPv6 address is returned so.
 *
 * @example
 * ```ts
 * addressBlock("2001:db8:5:6:a:b:c:d"); // "2001:db8:5:6::/64"
 * addressBlock("203.0.113.7"); // "203.0.113.7"
 * ```
 */
export function addressBlock(address: string): string {
  const canonical = canonicalAddress(address);
  // An IPv4 address mapped into IPv6 is IPv4 once spelt canonically: counted as itself.
  if (isIP(canonical) !== 6 || canonical.includes("%")) return canonical;
  const [head = "", tail] = canonical.split("::");
  const leading = head === "" ? [] : head.split(":");
  const trailing = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [
    ...leading,
    ...Array<string>(Math.max(0, 8 - leading.length - trailing.length)).fill("0"),
    ...trailing,
  ];
  return `${canonicalAddress(`${groups.slice(0, 4).join(":")}::`)}/64`;
}
