import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { FeedEvent } from "../src/events/feed-events.ts";
import { NatsSink } from "../src/events/nats-sink.ts";
import { natsServerBinary, readStream, startNatsServer } from "./nats-server.ts";
import { startDroppingProxy } from "./nats-dropping-proxy.ts";

/*
 * The NATS sink keeps the stream in sequence order when one message of a pipelined batch is lost
 * (a proxy drops it, as a connection dying under it would) while the next ones get through, and
 * when a batch sent again holds duplicates with the other feed's messages after them.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function outcomes(from: number, to: number): FeedEvent[] {
  return Array.from({ length: to - from + 1 }, (_, index) => {
    const sequence = from + index;
    return {
      feed: "outcomes",
      sequence,
      id: `outcome-${sequence}`,
      subject: "outcomes.complete",
      at: "2026-12-06T00:00:00.000Z",
      body: JSON.stringify({ sequence }),
    } as const;
  });
}

function sink(url: string): NatsSink {
  const created = new NatsSink({
    url: new URL(url),
    subjectPrefix: "sds",
    stream: "SDS",
    maxAgeSeconds: 3600,
    replicas: 1,
    logger: pino({ level: "silent" }),
    publishTimeoutMs: 500,
  });
  cleanups.push(() => created.close());
  return created;
}

describe.skipIf(natsServerBinary === undefined)("the NATS sink's order", () => {
  it("stores nothing after a message lost in a pipelined batch, so the retry from it keeps the stream in order", async () => {
    const server = await startNatsServer();
    cleanups.push(() => server.close());
    const proxy = await startDroppingProxy(server.url, ["outcome-5"]);
    cleanups.push(() => proxy.close());
    const nats = sink(proxy.url);
    const first = await nats.deliver(outcomes(1, 10));
    expect(proxy.dropped).toEqual(["outcome-5"]);
    expect(first.delivered).toBe(4);
    // The relay hands over again from the first event not acknowledged.
    expect(await nats.deliver(outcomes(5, 10))).toEqual({ delivered: 6 });
    const ids = (await readStream(server.url, "SDS")).map((message) => message.msgId);
    expect(ids).toEqual(outcomes(1, 10).map((event) => event.id));
  });

  it("delivers a batch sent again whole when duplicates in it are followed by the other feed's messages", async () => {
    const server = await startNatsServer();
    cleanups.push(() => server.close());
    const nats = sink(server.url);
    expect(await nats.deliver(outcomes(1, 3))).toEqual({ delivered: 3 });
    // The change feed's relay published after them.
    const connection = await connect({ servers: server.url });
    cleanups.push(() => connection.close());
    await jetstream(connection).publish("sds.changes.opened", "{}", { msgID: "change-1" });
    // A crash before the position was stored: the outcomes go again, 1 to 3 duplicates, then new ones.
    expect(await nats.deliver(outcomes(1, 6))).toEqual({ delivered: 6 });
    const ids = (await readStream(server.url, "SDS")).map((message) => message.msgId);
    expect(ids).toEqual(["outcome-1", "outcome-2", "outcome-3", "change-1", "outcome-4", "outcome-5", "outcome-6"]);
  });
});
