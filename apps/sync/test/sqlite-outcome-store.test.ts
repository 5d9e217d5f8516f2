import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loopDatabasePath, openSqliteOutcomeStore } from "../src/loop/store/sqlite-loop-store.ts";
import { describeOutcomeStoreConformance } from "./outcome-store-conformance.ts";

describeOutcomeStoreConformance("SQLite", () => {
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-outcomes-"));
  const path = join(directory, "nested", "sds.db");
  return Promise.resolve({
    open: () => openSqliteOutcomeStore(path),
    destroy: () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
});

describe("the SQLite outcome store's file", () => {
  it("sits beside the sync store's file, so a running cycle never holds its write lock", () => {
    expect(loopDatabasePath("./data/sds.db")).toBe("./data/sds.loop.db");
    expect(loopDatabasePath("/var/lib/sds")).toBe("/var/lib/sds.loop.db");
    expect(loopDatabasePath(":memory:")).toBe(":memory:");
  });
});
