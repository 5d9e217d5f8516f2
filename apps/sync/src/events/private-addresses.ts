import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Private, loopback, link-local and other non-public ranges: a webhook there is refused unless allowed. */
const nonPublic = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  nonPublic.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  nonPublic.addSubnet(network, prefix, "ipv6");

/** Whether an IP address is private, loopback, link-local or otherwise not on the public internet (IPv4-mapped IPv6 included). */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return nonPublic.check(mapped, "ipv4");
  const family = isIP(address);
  if (family === 0) return false;
  return nonPublic.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** A URL's host name without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * The first non-public address a host name is or resolves to, else undefined. A name that does
 * not resolve now yields undefined: each delivery checks its addresses again (see webhook-sink.ts).
 */
export async function nonPublicAddressOf(host: string): Promise<string | undefined> {
  if (isIP(host) !== 0) return isNonPublicAddress(host) ? host : undefined;
  if (host === "localhost" || host.endsWith(".localhost")) return host;
  try {
    const addresses = await lookup(host, { all: true });
    return addresses.find((entry) => isNonPublicAddress(entry.address))?.address;
  } catch {
    return undefined;
  }
}
