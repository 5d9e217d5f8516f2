import { connect, type Socket } from "node:net";
import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./harness.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * The receiver's port cannot starve the service (issue 32): idle or trickling connections to
 * SYNC_OUTCOMES_PORT beyond the caps are closed at once, a client that trickles its headers is
 * cut off by the receiver's short header timeout, and the main port's /healthz answers
 * throughout. Small caps and a short timeout keep the test fast; nothing is timed but the wait
 * for each close.
 */

interface TrackedSocket {
  readonly socket: Socket;
  closed: boolean;
}

/**
 * A connection to `url`'s port that sends nothing, from `localAddress` (any of 127.0.0.0/8 reaches
 * loopback), to `host` (the URL's by default).
 */
async function openIdle(url: string, localAddress = "127.0.0.1", host?: string): Promise<TrackedSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: host ?? hostname, port: Number(port), localAddress });
  const tracked: TrackedSocket = { socket, closed: false };
  socket.on("close", () => {
    tracked.closed = true;
  });
  socket.on("error", () => {
    // A connection the server drops at once may reset; closed is what the test looks at.
  });
  await new Promise<void>((resolve) => {
    socket.once("connect", resolve);
    socket.once("close", () => {
      resolve();
    });
  });
  return tracked;
}

/** This host's first address that is not loopback: the per-address cap leaves loopback (a proxy, a router beside the service) to the total. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && !address.internal && address.family === "IPv4")?.address;

describe("connections to the outcome receiver", () => {
  let harness: ServiceHarness | undefined;
  const sockets: TrackedSocket[] = [];
  afterEach(async () => {
    for (const { socket } of sockets.splice(0)) socket.destroy();
    await harness?.close();
    harness = undefined;
  });

  async function start(config: Parameters<typeof startServiceHarness>[0] = {}): Promise<ServiceHarness> {
    harness = await startServiceHarness(config);
    return harness;
  }

  it.skipIf(outsideAddress === undefined)(
    "closes idle connections beyond the per-address cap at once, and /healthz on the main port still answers",
    async () => {
      const address = outsideAddress ?? "";
      const service = await start({
        config: { outcomesPort: 0, outcomesHost: "0.0.0.0", maxConnections: 50, maxConnectionsPerAddress: 4 },
      });
      const receiver = service.service.outcomesUrl;
      for (let index = 0; index < 12; index += 1) sockets.push(await openIdle(receiver, address, address));
      // Four stay, the eight beyond the cap are closed by the server (the client never closes them).
      await waitFor(() => sockets.filter((tracked) => tracked.closed).length === 8, 10_000);
      expect(sockets.slice(0, 4).every((tracked) => !tracked.closed)).toBe(true);
      // Another address has its own allowance, and loopback (a proxy, a router on this host) counts toward the total only.
      const others = [await openIdle(receiver, "127.0.0.1", "127.0.0.1")];
      for (let index = 0; index < 6; index += 1) others.push(await openIdle(receiver, "127.0.0.2", "127.0.0.1"));
      sockets.push(...others);
      const health = await service.request("/healthz");
      expect(health.status).toBe(200);
      expect(others.every((tracked) => !tracked.closed)).toBe(true);
    },
  );

  it("closes connections beyond the listener's total cap whatever their addresses, loopback's too", async () => {
    const service = await start({
      config: { outcomesPort: 0, maxConnections: 6, maxConnectionsPerAddress: 4 },
    });
    for (const address of ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
      for (let index = 0; index < 3; index += 1) sockets.push(await openIdle(service.service.outcomesUrl, address));
    await waitFor(() => sockets.filter((tracked) => tracked.closed).length === 3, 10_000);
    expect(sockets.slice(0, 6).every((tracked) => !tracked.closed)).toBe(true);
    expect((await service.request("/healthz")).status).toBe(200);
    // A closed connection frees its place.
    for (const { socket } of sockets.slice(0, 2)) socket.destroy();
    await waitFor(async () => {
      const fresh = await openIdle(service.service.outcomesUrl, "127.0.0.5");
      sockets.push(fresh);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return !fresh.closed;
    }, 10_000);
  });

  it("cuts off a client that trickles its headers, at the receiver's header timeout", async () => {
    const service = await start({ config: { outcomesPort: 0, outcomesHeadersTimeoutSeconds: 0.3 } });
    const trickler = await openIdle(service.service.outcomesUrl);
    sockets.push(trickler);
    let received = "";
    trickler.socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    trickler.socket.write("GET /v1/outcomes/complete?vq_token=x HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    // One header byte every 50 ms, never the blank line that ends them.
    const timer = setInterval(() => {
      if (!trickler.closed) trickler.socket.write("X");
    }, 50);
    try {
      await waitFor(() => trickler.closed, 10_000);
    } finally {
      clearInterval(timer);
    }
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect((await service.request("/healthz")).status).toBe(200);
  });
});
