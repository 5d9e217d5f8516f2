import { createServer, type Server } from "node:http";
import diagnostics_channel from "node:diagnostics_channel";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseWebhookEndpoints } from "./event-settings.ts";
import type { FeedEvent } from "./feed-events.ts";
import { isNonPublicAddress } from "./private-addresses.ts";
import { MAX_RESPONSE_BYTES, WebhookSink } from "./webhook-sink.ts";

const SECRET = `whsec_${Buffer.from("a test secret of thirty-two bytes").toString("base64")}`;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

const event: FeedEvent = {
  feed: "outcomes",
  sequence: 1,
  id: "outcome-1",
  subject: "outcomes.complete",
  at: "2026-11-28T00:00:00.000Z",
  body: '{"sequence":1}',
};

function sinkFor(url: string, allowPrivate = true): WebhookSink {
  const endpoint = parseWebhookEndpoints(`ledger=${url}`)[0];
  if (!endpoint) throw new Error("no endpoint");
  return new WebhookSink({ endpoint, secret: SECRET, timeoutMs: 2000, allowPrivate });
}

describe("WebhookSink", () => {
  it("does not follow a redirect: the attempt fails, naming where it pointed", async () => {
    let followed = false;
    const elsewhere = await listen((_request, response) => {
      followed = true;
      response.writeHead(200).end();
    });
    const url = await listen((_request, response) => {
      response.writeHead(307, { location: elsewhere }).end();
    });
    const report = await sinkFor(url).deliver([event], new AbortController().signal);
    expect(report).toEqual({ delivered: 0, error: `HTTP 307: redirect to ${elsewhere} not followed` });
    expect(followed).toBe(false);
  });

  it("reads no more than 64 KiB of a response body, however much the endpoint sends", async () => {
    const url = await listen((_request, response) => {
      response.writeHead(500, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(16 * 1024, "x");
      // An endless body: the sink must stop reading and hang up.
      const write = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once("drain", write);
      };
      write();
    });
    // The sink's own sockets, as Node creates them: what they read from the kernel is what the sink read.
    const sockets: Socket[] = [];
    const onSocket = (message: unknown) => sockets.push((message as { socket: Socket }).socket);
    diagnostics_channel.subscribe("net.client.socket", onSocket);
    let report;
    try {
      report = await sinkFor(url).deliver([event], new AbortController().signal);
    } finally {
      diagnostics_channel.unsubscribe("net.client.socket", onSocket);
    }
    expect(report.delivered).toBe(0);
    expect(report.error).toMatch(/^HTTP 500: x{200}…$/);
    expect(sockets).toHaveLength(1);
    // The limit, plus what one read of the socket may bring past it (Node reads up to 64 KiB at a time) and the head.
    expect(sockets[0]?.destroyed).toBe(true);
    expect(sockets[0]?.bytesRead).toBeGreaterThan(MAX_RESPONSE_BYTES);
    expect(sockets[0]?.bytesRead).toBeLessThanOrEqual(2 * MAX_RESPONSE_BYTES + 1024);
  });

  it("refuses a name resolving to a loopback address unless private addresses are allowed", async () => {
    const url = await listen((_request, response) => response.writeHead(204).end());
    const byName = url.replace("127.0.0.1", "localhost");
    const refused = await sinkFor(byName, false).deliver([event], new AbortController().signal);
    expect(refused.error).toMatch(/private or loopback address only/);
    expect(await sinkFor(byName, true).deliver([event], new AbortController().signal)).toEqual({ delivered: 1 });
  });

  it("tells private, loopback and link-local addresses from public ones", () => {
    for (const address of [
      "10.1.2.3",
      "127.0.0.1",
      "169.254.169.254",
      "192.168.0.1",
      "172.20.0.1",
      "::1",
      "fd00::1",
      "::ffff:10.0.0.1",
    ])
      expect(isNonPublicAddress(address), address).toBe(true);
    for (const address of ["8.8.8.8", "85.214.0.1", "2a00:1450::1"])
      expect(isNonPublicAddress(address), address).toBe(false);
  });
});
