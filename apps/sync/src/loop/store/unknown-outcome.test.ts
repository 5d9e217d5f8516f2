import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { StoreError } from "../../common/errors.ts";
import { loopDatabasePath, openSqliteLoopStore } from "./sqlite-loop-store.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("the loop store reading a value it should not hold", () => {
  it("answers an entry whose outcome it does not know with a StoreError, never as a pending or complete entry", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sds-unknown-outcome-"));
    directories.push(directory);
    const path = join(directory, "sds.db");
    const store = await openSqliteLoopStore(path);
    await store.recordEntry({ token: "t-1", surveyId: 7, uid: "u-1", cpi: 1.5, at: new Date("2026-11-28T08:00:00Z") });
    // Another writer (a restore, a hand edit) leaves an outcome this build does not know.
    const raw = new DatabaseSync(loopDatabasePath(path));
    raw.exec("UPDATE loop_entries SET outcome = 'completed' WHERE token = 't-1'");
    raw.close();

    await expect(store.respondentHistory("u-1", new Date())).rejects.toThrow(StoreError);
    await expect(store.currentOutcomes(["t-1"])).rejects.toThrow(/"completed" where one of complete, terminate/);
    await store.close();
  });
});
