import { describe } from "vitest";
import { openPostgresLoopStore } from "../src/loop/store/postgres-loop-store.ts";
import { describeLoopStoreConformance } from "./loop-store-conformance.ts";
import { describeSessionRecordsConformance } from "./session-records-conformance.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";

const available = await postgresAvailable();

function postgresHarness() {
  const schema = freshSchemaName("sds_loop_test");
  return Promise.resolve({
    open: () => openPostgresLoopStore({ connectionString: testDatabaseUrl, schema, poolSize: 4 }),
    destroy: () => dropSchema(schema),
  });
}

describe.skipIf(!available)("PostgreSQL", () => {
  describeLoopStoreConformance("PostgreSQL", postgresHarness);
  describeSessionRecordsConformance("PostgreSQL", postgresHarness);
});
