import type { Server } from "node:http";
import type { Socket } from "node:net";
import proxyAddr from "proxy-addr";
import { addressBlock } from "./client-address.ts";

/*
 * Each listener holds at most so many connections, and so many per client address, so idle or
 * trickling clients on one port (the public outcome receiver) cannot take the process's file
 * descriptors: the database pool, the upstream's sockets and the other listener's /healthz keep
 * theirs (issue 32: 1,100 idle connections under a 1,024 limit failed cycles with EMFILE). A
 * connection over a cap is closed at once, before a byte of it is read.
 */

/** The caps of one listener (SYNC_MAX_CONNECTIONS, SYNC_MAX_CONNECTIONS_PER_ADDRESS). */
export interface ConnectionLimits {
  /** Open connections at once on the listener. */
  readonly total: number;
  /** Open connections at once from one address (an IPv6 client's /64), loopback and trusted proxies aside. */
  readonly perAddress: number;
  /**
   * SYNC_TRUSTED_PROXIES: every client behind a proxy shares its address, so the proxy's own
   * connections count toward the total only, like those of this host (loopback: a reverse proxy
   * or a router beside the service). @default []
   */
  readonly trustedProxies?: readonly string[];
}

/** Applies the caps to a server; call once, before it accepts connections. */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  // net.Server closes a connection over this at once (its "drop" event), before HTTP sees it.
  server.maxConnections = limits.total;
  const shared = proxyAddr.compile(["loopback", ...(limits.trustedProxies ?? [])]);
  const openByAddress = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    // A socket already gone has no address; there is nothing to count.
    if (address === undefined) return;
    if (shared(address, 0)) return;
    const block = addressBlock(address);
    const open = (openByAddress.get(block) ?? 0) + 1;
    if (open > limits.perAddress) {
      socket.destroy();
      return;
    }
    openByAddress.set(block, open);
    socket.once("close", () => {
      const left = (openByAddress.get(block) ?? 1) - 1;
      if (left === 0) openByAddress.delete(block);
      else openByAddress.set(block, left);
    });
  });
}
