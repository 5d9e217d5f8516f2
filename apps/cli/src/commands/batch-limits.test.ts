import { MAX_HISTORY_BATCH, MAX_RECONCILE_BATCH } from "@sds/sync-client";
import { describe, expect, it } from "vitest";
import { command as reconcile } from "./outcomes/reconcile.ts";
import { command as importHistory } from "./respondents/import.ts";

// The help of the two batch commands writes sds-sync's limits out (help must not load
// @sds/sync-client, which brings zod); their run checks --batch against the package's constants.
describe("the --batch help of the commands that send files to sds-sync", () => {
  it("names @sds/sync-client's limits", () => {
    expect(reconcile.options.batch.description).toContain(`1 to ${MAX_RECONCILE_BATCH} `);
    expect(importHistory.options.batch.description).toContain(`1 to ${MAX_HISTORY_BATCH} `);
    expect(importHistory.options.batch.description).toContain(`(default ${MAX_HISTORY_BATCH})`);
  });
});
