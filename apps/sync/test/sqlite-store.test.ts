import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../src/inventory-store/sqlite-store.ts";
import { describeStoreConformance } from "./store-conformance.ts";

describeStoreConformance("SQLite", () => {
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-store-"));
  const path = join(directory, "nested", "sds.db");
  return Promise.resolve({
    open: () => openSqliteStore({ path }),
    destroy: () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    },
  });
});
