import type { IncomingMessage } from "node:http";
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
  if (trustedProxies.length === 0) return (request) => unmapped(request.socket.remoteAddress ?? "");
  const trust = proxyAddr.compile([...trustedProxies]);
  return (request) => (request.socket.remoteAddress === undefined ? "" : unmapped(proxyAddr(request, trust)));
}

/** `::ffff:203.0.113.7` (an IPv4 peer on a dual-stack socket) → `203.0.113.7`: one address, one spelling. */
function unmapped(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address;
}
