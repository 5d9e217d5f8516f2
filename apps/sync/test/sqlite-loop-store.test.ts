import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { migrateSqlite } from "../src/database/sqlite-migrate.ts";
import { outcomeLedger } from "../src/loop/store/loop-migrations.ts";
import { loopDatabasePath, openSqliteLoopStore } from "../src/loop/store/sqlite-loop-store.ts";
import { describeLoopStoreConformance } from "./loop-store-conformance.ts";
import { describeSessionRecordsConformance } from "./session-records-conformance.ts";

function sqliteHarness() {
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-outcomes-"));
  const path = join(directory, "nested", "sds.db");
  return Promise.resolve({
    open: () => openSqliteLoopStore(path),
    destroy: () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
}

describeLoopStoreConformance("SQLite", sqliteHarness);
describeSessionRecordsConformance("SQLite", sqliteHarness);

describe("the SQLite loop store's file", () => {
  it("sits beside the sync store's file, so a running cycle never holds its write lock", () => {
    expect(loopDatabasePath("./data/sds.db")).toBe("./data/sds.loop.db");
    expect(loopDatabasePath("/var/lib/sds")).toBe("/var/lib/sds.loop.db");
    expect(loopDatabasePath(":memory:")).toBe(":memory:");
  });
});

describe("the loop store's version 3 migration", () => {
  it("keeps every entry and outcome of a version 2 store and backfills the counts, orphans and outcome totals from them", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-loop-v2-"));
    try {
      const path = join(directory, "sds.db");
      const db = new DatabaseSync(loopDatabasePath(path));
      migrateSqlite(db, {
        ...outcomeLedger,
        migrations: outcomeLedger.migrations.filter((migration) => migration.version <= 2),
      });
      const at = "2026-03-01T10:00:00.000Z";
      db.exec(`INSERT INTO loop_entries (token, survey_id, uid, cpi, issued_at, outcome, outcome_at) VALUES
        ('a', 7, 'r1', 2.5, '${at}', 'complete', '${at}'), ('b', 7, 'r2', 2.5, '${at}', 'terminate', '${at}'), ('c', 8, 'r3', 1, '${at}', NULL, NULL)`);
      db.exec(`INSERT INTO loop_outcomes (sequence, token, outcome, survey_id, previous_outcome, received_at) VALUES
        (1, 'a', 'complete', 7, NULL, '${at}'), (2, 'b', 'terminate', 7, NULL, '${at}'), (3, 'stray', 'overquota', NULL, NULL, '${at}')`);
      db.exec("UPDATE loop_counters SET value = 3 WHERE name = 'outcomes'");
      db.close();
      const store = await openSqliteLoopStore(path);
      expect(await store.conversion()).toEqual([
        {
          surveyId: 7,
          entries: 2,
          completes: 1,
          terminates: 1,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 0,
          earnings: 2.5,
        },
        {
          surveyId: 8,
          entries: 1,
          completes: 0,
          terminates: 0,
          overquotas: 0,
          securityTerminates: 0,
          reversals: 0,
          earnings: 0,
        },
      ]);
      expect(await store.outcomeCounts()).toEqual({ complete: 1, terminate: 1, overquota: 1, security: 0 });
      expect(await store.orphanCount()).toBe(1);
      expect((await store.listOutcomes(0, 10)).map((record) => record.token)).toEqual(["a", "b", "stray"]);
      // The next outcome follows the feed, and a change back is now recorded.
      expect((await store.recordOutcome({ token: "a", outcome: "terminate", at: new Date() })).record.sequence).toBe(4);
      expect((await store.recordOutcome({ token: "a", outcome: "complete", at: new Date() })).recorded).toBe(true);
      await store.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
