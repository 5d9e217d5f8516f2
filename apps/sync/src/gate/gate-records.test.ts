import { afterEach, describe, expect, it } from "vitest";
import { openSqliteLoopStore } from "../loop/store/sqlite-loop-store.ts";
import type { LoopStore } from "../loop/store/loop-store.ts";
import {
  deviceOfOtherUid,
  pruneGateRecords,
  recordStart,
  rememberDevice,
  startsSince,
  startSubject,
} from "./gate-records.ts";

const HOUR = 3_600_000;
const now = Date.UTC(2026, 11, 6, 12);
const at = (hoursAgo: number) => new Date(now - hoursAgo * HOUR);

describe("the quality gate's records", () => {
  let store: LoopStore | undefined;
  afterEach(async () => {
    await store?.close();
  });

  it("prunes starts past a day and devices past their window in batches, keeping what the rules still read", async () => {
    const loop = (store = await openSqliteLoopStore(":memory:"));
    const subject = startSubject("ip", "192.0.2.1");
    await loop.write(
      "seeding",
      (function* () {
        for (const hoursAgo of [30, 29, 28, 2, 1]) yield* recordStart(subject, at(hoursAgo));
        yield* rememberDevice("fp-old-device", "u-old", at(24 * 40));
        yield* rememberDevice("fp-new-device", "u-new", at(1));
      })(),
    );
    const dayAgo = at(24);
    const windowStart = at(24 * 30);
    expect(await loop.read(startsSince(subject, at(48), 100))).toBe(5);
    // A batch of 2 takes the two oldest starts only.
    expect(await loop.write("pruning", pruneGateRecords(dayAgo, windowStart, 2))).toBe(2);
    expect(await loop.read(startsSince(subject, at(48), 100))).toBe(3);
    // The next batch takes the last old start, then the device past its window.
    expect(await loop.write("pruning", pruneGateRecords(dayAgo, windowStart, 10))).toBe(2);
    expect(await loop.write("pruning", pruneGateRecords(dayAgo, windowStart, 10))).toBe(0);
    expect(await loop.read(startsSince(subject, at(48), 100))).toBe(2);
    expect(await loop.read(deviceOfOtherUid("fp-old-device", "someone", at(24 * 365)))).toBeUndefined();
    expect(await loop.read(deviceOfOtherUid("fp-new-device", "someone", windowStart))).toBe("u-new");
    // A count stops at its limit: a flood's rows are never all read.
    expect(await loop.read(startsSince(subject, at(48), 1))).toBe(1);
  });
});
