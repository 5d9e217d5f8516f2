import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EventPosition } from "../loop/store/loop-store.ts";
import type { DeliveryReport, EventSink } from "./event-sink.ts";
import type { EventSource, FeedEvent } from "./feed-events.ts";
import type { Clock } from "../loop/runtime/clock.ts";
import { FeedRelay } from "./relay.ts";

const logger = pino({ level: "silent" });

/** A clock whose sleeps end when the test advances time past them. */
function manualClock(start = 1_000_000) {
  let now = start;
  const sleepers: { until: number; resolve: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const sleeper = { until: now + ms, resolve };
        sleepers.push(sleeper);
        signal.addEventListener(
          "abort",
          () => {
            resolve();
          },
          { once: true },
        );
      }),
  };
  return {
    clock,
    /** Moves time on and wakes every sleep that ends by then. */
    advance(ms: number) {
      now += ms;
      for (const sleeper of sleepers.splice(0)) {
        if (sleeper.until <= now) sleeper.resolve();
        else sleepers.push(sleeper);
      }
    },
    /** The pauses asked for so far, in ms. */
    get pending() {
      return sleepers.map((sleeper) => sleeper.until - now);
    },
  };
}

function event(sequence: number): FeedEvent {
  return {
    feed: "outcomes",
    sequence,
    id: `outcome-${sequence}`,
    subject: "outcomes.complete",
    at: "2026-11-28T00:00:00.000Z",
    body: "{}",
  };
}

function feed(latest: number, horizon = 0): EventSource & { latest: () => Promise<number> } {
  return {
    feed: "outcomes",
    read: (after, limit) =>
      Promise.resolve(
        Array.from({ length: Math.max(0, Math.min(limit, latest - Math.max(after, horizon))) }, (_, index) =>
          event(Math.max(after, horizon) + index + 1),
        ),
      ),
    horizon: () => Promise.resolve(horizon),
    latest: () => Promise.resolve(latest),
  };
}

/** A sink that acknowledges while `up`, recording every event it acknowledged. */
function sink(name = "webhook:ledger") {
  const delivered: string[] = [];
  const state = { up: true, attempts: 0 };
  const fake: EventSink & { delivered: string[]; state: typeof state } = {
    name,
    kind: "webhook",
    batchSize: 50,
    maxBackoffMs: 300_000,
    accepts: () => true,
    deliver(events): Promise<DeliveryReport> {
      state.attempts += 1;
      if (!state.up) return Promise.resolve({ delivered: 0, error: "HTTP 503" });
      delivered.push(...events.map((item) => item.id));
      return Promise.resolve({ delivered: events.length });
    },
    close: () => Promise.resolve(),
    delivered,
    state,
  };
  return fake;
}

function positions() {
  const rows = new Map<string, EventPosition>();
  return {
    rows,
    eventPositions: () => Promise.resolve([...rows.values()]),
    saveEventPosition: (position: EventPosition) => {
      const key = `${position.sink}/${position.feed}`;
      const previous = rows.get(key)?.position ?? -1;
      rows.set(key, { ...position, position: Math.max(previous, position.position) });
      return Promise.resolve();
    },
  };
}

/**
 * Lets a relay whose sink refuses make `attempts` attempts, moving the clock over each pause it
 * asks for in between; the pauses, in order.
 */
async function failedAttemptPauses(
  target: ReturnType<typeof sink>,
  time: ReturnType<typeof manualClock>,
  attempts: number,
): Promise<number[]> {
  const pauses: number[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    await vi.waitFor(() => {
      expect(target.state.attempts).toBe(attempt);
    });
    await vi.waitFor(() => {
      expect(time.pending.length).toBe(1);
    });
    const pause = time.pending[0] ?? 0;
    pauses.push(pause);
    time.advance(pause);
  }
  return pauses;
}

const relays: FeedRelay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.stop()));
});

function relay(
  options: Partial<ConstructorParameters<typeof FeedRelay>[0]> &
    Pick<ConstructorParameters<typeof FeedRelay>[0], "sink" | "source" | "positions">,
) {
  const started = new FeedRelay({ isLeader: () => true, logger, random: () => 1 - 1e-12, ...options });
  relays.push(started);
  started.start();
  return started;
}

describe("FeedRelay", () => {
  it("continues from the stored position, as a new leader does", async () => {
    const store = positions();
    await store.saveEventPosition({
      sink: "webhook:ledger",
      feed: "outcomes",
      position: 7,
      updatedAt: "",
      failingSince: null,
      lastError: null,
    });
    const target = sink();
    relay({ sink: target, source: feed(10), positions: store, clock: manualClock().clock });
    await vi.waitFor(() => {
      expect(target.delivered).toEqual(["outcome-8", "outcome-9", "outcome-10"]);
    });
    await vi.waitFor(() => {
      expect(store.rows.get("webhook:ledger/outcomes")?.position).toBe(10);
    });
  });

  it("reads at once on news of a commit of this replica, without waiting for its next poll", async () => {
    const target = sink();
    const time = manualClock();
    let latest = 0;
    let notify: () => void = () => undefined;
    const source = { ...feed(0), read: (after: number, limit: number) => feed(latest).read(after, limit) };
    relay({
      sink: target,
      source,
      positions: positions(),
      clock: time.clock,
      pollMs: 200,
      news: (listener) => {
        notify = listener;
        return () => undefined;
      },
    });
    await vi.waitFor(() => {
      expect(time.pending).toEqual([200]);
    });
    latest = 2;
    notify();
    time.advance(10);
    await vi.waitFor(() => {
      expect(target.delivered).toEqual(["outcome-1", "outcome-2"]);
    });
  });

  it("delivers nothing while this replica does not lead", async () => {
    const target = sink();
    const time = manualClock();
    let leads = false;
    relay({ sink: target, source: feed(3), positions: positions(), clock: time.clock, isLeader: () => leads });
    await vi.waitFor(() => {
      expect(time.pending.length).toBe(1);
    });
    expect(target.delivered).toEqual([]);
    leads = true;
    time.advance(1000);
    await vi.waitFor(() => {
      expect(target.delivered).toHaveLength(3);
    });
  });

  it("retries within a second, then doubling up to 5 minutes; marks the sink failing past the retry time; resume retries at once", async () => {
    const target = sink();
    target.state.up = false;
    const time = manualClock();
    const store = positions();
    const started = relay({
      sink: target,
      source: feed(2),
      positions: store,
      clock: time.clock,
      retryForMs: 3_600_000,
    });
    const pauses = await failedAttemptPauses(target, time, 12);
    expect(pauses.slice(0, 6)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000]);
    expect(Math.max(...pauses)).toBe(300_000);
    // 1 + 2 + … + 256 s, then 300 s apart: past an hour only after a few more attempts.
    expect(started.state.failing).toBe(false);
    for (let attempt = 13; !started.state.failing; attempt++) {
      await vi.waitFor(() => {
        expect(target.state.attempts).toBe(attempt);
      });
      await vi.waitFor(() => {
        expect(time.pending.length).toBe(1);
      });
      time.advance(time.pending[0] ?? 0);
    }
    await vi.waitFor(() => {
      expect(store.rows.get("webhook:ledger/outcomes")?.failingSince).not.toBeNull();
    });
    expect(target.delivered).toEqual([]);
    await vi.waitFor(() => {
      expect(time.pending.length).toBe(1);
    });
    const attempts = target.state.attempts;
    target.state.up = true;
    started.resume();
    await vi.waitFor(() => {
      expect(target.delivered).toEqual(["outcome-1", "outcome-2"]);
    });
    expect(target.state.attempts).toBe(attempts + 1);
    expect(started.state.failing).toBe(false);
    await vi.waitFor(() => {
      expect(store.rows.get("webhook:ledger/outcomes")).toMatchObject({
        position: 2,
        failingSince: null,
        lastError: null,
      });
    });
  });

  it("pauses as its backoff option says: from firstMs, doubling, never longer than maxMs", async () => {
    const target = sink();
    target.state.up = false;
    const time = manualClock();
    relay({
      sink: target,
      source: feed(1),
      positions: positions(),
      clock: time.clock,
      backoff: { firstMs: 100, maxMs: 500 },
    });
    const pauses = await failedAttemptPauses(target, time, 5);
    expect(pauses).toEqual([100, 200, 400, 500, 500]);
  });

  it("keeps the failing mark a former leader stored", async () => {
    const store = positions();
    await store.saveEventPosition({
      sink: "webhook:ledger",
      feed: "outcomes",
      position: 0,
      updatedAt: "",
      failingSince: "2026-11-27T00:00:00.000Z",
      lastError: "HTTP 503",
    });
    const target = sink();
    target.state.up = false;
    const started = relay({
      sink: target,
      source: feed(1),
      positions: store,
      clock: manualClock().clock,
      retryForMs: 3_600_000,
    });
    await vi.waitFor(() => {
      expect(target.state.attempts).toBe(1);
    });
    expect(started.state.failing).toBe(true);
    expect(store.rows.get("webhook:ledger/outcomes")?.failingSince).toBe("2026-11-27T00:00:00.000Z");
  });

  it("says so and goes on from the horizon when the records it had not delivered were pruned", async () => {
    const store = positions();
    await store.saveEventPosition({
      sink: "nats",
      feed: "outcomes",
      position: 2,
      updatedAt: "",
      failingSince: null,
      lastError: null,
    });
    const target = sink("nats");
    const skipped = vi.fn();
    relay({
      sink: target,
      source: feed(8, 5),
      positions: store,
      clock: manualClock().clock,
      observer: { delivered: () => undefined, failed: () => undefined, skipped },
    });
    await vi.waitFor(() => {
      expect(target.delivered).toEqual(["outcome-6", "outcome-7", "outcome-8"]);
    });
    expect(skipped).toHaveBeenCalledWith("nats", "outcomes", 3);
  });
});
