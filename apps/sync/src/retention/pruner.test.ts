import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { PruneBatchOutcome } from "../database/retention.ts";
import type { PruneTarget } from "../inventory-store/inventory-retention.ts";
import type { OutcomePruneTarget } from "../loop/store/loop-store.ts";
import type { Leadership } from "../inventory-store/store.ts";
import { Pruner } from "./pruner.ts";

const logger = pino({ level: "silent" });
const leading = (isLeader: boolean): Leadership => ({
  isLeader,
  acquire: () => Promise.resolve(isLeader),
  release: () => Promise.resolve(),
});

/** A store whose targets hold `rows` old rows each, recording every batch asked of it. */
function storeWith(
  rows: Record<PruneTarget, number>,
  options: { readonly isLeader?: boolean; readonly deferAfter?: number } = {},
) {
  const calls: { target: PruneTarget; before: Date; limit: number }[] = [];
  const left = { ...rows };
  return {
    calls,
    left,
    store: {
      leadership: leading(options.isLeader ?? true),
      pruneBatch(target: PruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
        calls.push({ target, before, limit });
        if (options.deferAfter !== undefined && calls.length > options.deferAfter)
          return Promise.resolve({ deleted: 0, more: true, deferred: true });
        const deleted = Math.min(limit, left[target]);
        left[target] -= deleted;
        return Promise.resolve({ deleted, more: deleted === limit, deferred: false });
      },
    },
  };
}

/** The outcome store's side: `rows` old rows per target, every batch recorded. */
function outcomeStoreWith(rows: Record<OutcomePruneTarget, number>) {
  const calls: { target: OutcomePruneTarget; before: Date }[] = [];
  const left = { ...rows };
  return {
    calls,
    left,
    store: {
      pruneBatch(target: OutcomePruneTarget, before: Date, limit: number): Promise<PruneBatchOutcome> {
        calls.push({ target, before });
        const deleted = Math.min(limit, left[target]);
        left[target] -= deleted;
        return Promise.resolve({ deleted, more: deleted === limit, deferred: false });
      },
    },
  };
}

describe("Pruner", () => {
  it("prunes entry links and outcomes with their own horizon when an outcome retention is given", async () => {
    const sync = storeWith({ changes: 1, runs: 0, quarantine: 0 });
    const loop = outcomeStoreWith({ outcomes: 12, entries: 4 });
    const pruner = new Pruner({
      store: sync.store,
      retentionMs: 60_000,
      outcomes: { store: loop.store, retentionMs: 3_600_000 },
      logger,
      batchSize: 10,
      pauseMs: 0,
      now: () => 10_000_000,
    });
    const pass = await pruner.pruneOnce();
    expect(pass).toEqual({
      ran: true,
      deleted: { changes: 1, runs: 0, quarantine: 0, outcomes: 12, entries: 4, sessions: 0, "idempotency-keys": 0 },
      deferred: false,
    });
    expect(loop.calls.map((call) => call.target)).toEqual(["outcomes", "outcomes", "entries"]);
    expect(loop.calls.every((call) => call.before.getTime() === 10_000_000 - 3_600_000)).toBe(true);
    expect(pruner.everyMs).toBe(6000);
  });

  it("never touches entry links and outcomes without an outcome retention (kept forever)", async () => {
    const sync = storeWith({ changes: 3, runs: 0, quarantine: 0 });
    const pass = await new Pruner({ store: sync.store, retentionMs: 60_000, logger }).pruneOnce();
    expect(pass.deleted).toMatchObject({ outcomes: 0, entries: 0 });
    expect(sync.calls.map((call) => call.target)).toEqual(["changes", "runs", "quarantine"]);
  });

  it("prunes sessions in batches with their own horizon, even with entry links and outcomes kept forever", async () => {
    const sync = storeWith({ changes: 0, runs: 0, quarantine: 0 });
    const befores: Date[] = [];
    let left = 23;
    const pruner = new Pruner({
      store: sync.store,
      retentionMs: 7 * 86_400_000,
      sessions: {
        store: {},
        retentionMs: 100_000,
        pruneBatch(before, limit) {
          befores.push(before);
          const deleted = Math.min(limit, left);
          left -= deleted;
          return Promise.resolve({ deleted, more: deleted === limit, deferred: false });
        },
      },
      logger,
      batchSize: 10,
      pauseMs: 0,
      now: () => 50_000_000,
    });
    const pass = await pruner.pruneOnce();
    expect(pass.deleted).toMatchObject({ sessions: 23, outcomes: 0, entries: 0 });
    expect(befores.map((before) => before.getTime())).toEqual(Array(3).fill(50_000_000 - 100_000));
    // The shortest retention sets the pace: a tenth of it.
    expect(pruner.everyMs).toBe(10_000);
  });

  it("goes on with the outcome store while the sync store is busy with a cycle", async () => {
    const sync = storeWith({ changes: 30, runs: 5, quarantine: 0 }, { deferAfter: 0 });
    const loop = outcomeStoreWith({ outcomes: 3, entries: 2 });
    const pass = await new Pruner({
      store: sync.store,
      retentionMs: 60_000,
      outcomes: { store: loop.store, retentionMs: 60_000 },
      logger,
      batchSize: 10,
      pauseMs: 0,
    }).pruneOnce();
    expect(pass).toEqual({
      ran: true,
      deleted: { changes: 0, runs: 0, quarantine: 0, outcomes: 3, entries: 2, sessions: 0, "idempotency-keys": 0 },
      deferred: true,
    });
    expect(sync.calls).toHaveLength(1);
  });

  it("prunes every target in batches until nothing old is left, with the horizon at now minus the retention", async () => {
    const { store, calls, left } = storeWith({ changes: 25, runs: 3, quarantine: 0 });
    const pruner = new Pruner({ store, retentionMs: 60_000, logger, batchSize: 10, pauseMs: 0, now: () => 1_000_000 });
    const pass = await pruner.pruneOnce();
    expect(pass).toEqual({
      ran: true,
      deleted: { changes: 25, runs: 3, quarantine: 0, outcomes: 0, entries: 0, sessions: 0, "idempotency-keys": 0 },
      deferred: false,
    });
    expect(left).toEqual({ changes: 0, runs: 0, quarantine: 0 });
    expect(calls.map((call) => call.target)).toEqual(["changes", "changes", "changes", "runs", "quarantine"]);
    expect(calls.every((call) => call.before.getTime() === 940_000 && call.limit === 10)).toBe(true);
  });

  it("does nothing on a replica that does not lead", async () => {
    const { store, calls } = storeWith({ changes: 5, runs: 5, quarantine: 5 }, { isLeader: false });
    const pass = await new Pruner({ store, retentionMs: 60_000, logger }).pruneOnce();
    expect(pass.ran).toBe(false);
    expect(calls).toEqual([]);
  });

  it("ends the pass when the store is busy with a cycle, leaving the rest to the next pass", async () => {
    const { store, calls } = storeWith({ changes: 30, runs: 0, quarantine: 0 }, { deferAfter: 1 });
    const pass = await new Pruner({ store, retentionMs: 60_000, logger, batchSize: 10, pauseMs: 0 }).pruneOnce();
    expect(pass).toEqual({
      ran: true,
      deleted: { changes: 10, runs: 0, quarantine: 0, outcomes: 0, entries: 0, sessions: 0, "idempotency-keys": 0 },
      deferred: true,
    });
    expect(calls).toHaveLength(2);
  });

  it("passes every tenth of the retention, at least every second and at most every minute", () => {
    const { store } = storeWith({ changes: 0, runs: 0, quarantine: 0 });
    expect(new Pruner({ store, retentionMs: 7 * 24 * 3600 * 1000, logger }).everyMs).toBe(60_000);
    expect(new Pruner({ store, retentionMs: 120_000, logger }).everyMs).toBe(12_000);
    expect(new Pruner({ store, retentionMs: 1000, logger }).everyMs).toBe(1000);
  });

  it("stops between passes at once", async () => {
    const { store } = storeWith({ changes: 0, runs: 0, quarantine: 0 });
    const pruner = new Pruner({ store, retentionMs: 3_600_000, logger });
    pruner.start();
    const started = Date.now();
    await pruner.stop();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
