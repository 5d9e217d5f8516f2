import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { StoreError } from "../../common/errors.ts";
import { loopDatabasePath, openSqliteLoopStore } from "./sqlite-loop-store.ts";

/*
 * Values the loop store should never hold are errors, never defaults: an unknown outcome read
 * back as "complete" would count a complete (and its Cpi) nobody reported.
 */
describe("unknown values in the loop store", () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  /** A store holding one entry, one outcome and one orphan, with `corruption` (SQL) applied behind its back. */
  async function storeWith(corruption: string) {
    const directory = mkdtempSync(join(tmpdir(), "sds-loop-values-"));
    directories.push(directory);
    const path = join(directory, "sds.db");
    const setup = await openSqliteLoopStore(path);
    const at = new Date("2026-11-20T10:00:00Z");
    await setup.recordEntry({ token: "t1", surveyId: 7, uid: "u1", cpi: 2, at });
    await setup.recordOutcome({ token: "t1", outcome: "terminate", at });
    await setup.recordOutcome({ token: "orphan", outcome: "terminate", at });
    await setup.close();
    const db = new DatabaseSync(loopDatabasePath(path));
    db.exec(corruption);
    db.close();
    return openSqliteLoopStore(path);
  }

  it("refuses an entry whose stored outcome is unknown instead of counting it as a complete", async () => {
    const store = await storeWith("UPDATE loop_entries SET outcome = 'completed' WHERE token = 't1'");
    try {
      await expect(store.currentOutcomes(["t1"])).rejects.toThrow(StoreError);
      await expect(store.currentOutcomes(["t1"])).rejects.toThrow(
        /"completed" where one of complete, terminate, overquota, security was expected/,
      );
      await expect(store.recordOutcome({ token: "t1", outcome: "complete", at: new Date() })).rejects.toThrow(
        StoreError,
      );
      expect((await store.conversion())[0]).toMatchObject({ completes: 0, earnings: 0 });
    } finally {
      await store.close();
    }
  });

  it("refuses an unknown outcome source, orphan outcome or outcome counter", async () => {
    const sources = await storeWith("UPDATE loop_outcomes SET source = 'magic'");
    await expect(sources.listOutcomes(0, 10)).rejects.toThrow(/"magic" where one of/);
    await sources.close();
    const orphans = await storeWith("UPDATE loop_orphans SET outcome = 'win'");
    await expect(orphans.recordOutcome({ token: "orphan", outcome: "complete", at: new Date() })).rejects.toThrow(
      StoreError,
    );
    await orphans.close();
    const counters = await storeWith("INSERT INTO loop_counters (name, value) VALUES ('outcome:win', 3)");
    await expect(counters.outcomeCounts()).rejects.toThrow(StoreError);
    await counters.close();
  });
});
