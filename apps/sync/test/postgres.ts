import { randomBytes } from "node:crypto";
import pg from "pg";

/** The PostgreSQL the tests use: trust auth on 127.0.0.1, database `test`. */
export const testDatabaseUrl =
  process.env.SDS_TEST_DATABASE_URL ??
  `postgres://${process.env.PGUSER ?? "postgres"}@127.0.0.1:5432/${process.env.PGDATABASE ?? "test"}`;

/**
 * Whether PostgreSQL answers. Unreachable inside CI is a failure (thrown, so the suite fails
 * loudly); outside CI the caller skips with the message this prints.
 */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: testDatabaseUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (error) {
    const reason = `PostgreSQL at ${testDatabaseUrl} is unreachable (${(error as Error).message})`;
    if (process.env.CI)
      throw new Error(`${reason}; CI is set, so the PostgreSQL tests cannot be skipped`, { cause: error });
    console.warn(
      `SKIPPING PostgreSQL tests: ${reason}. Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`,
    );
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema name for one test run, so runs never see each other's rows. */
export function freshSchemaName(prefix = "sds_sync_test"): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** The DATABASE_URL of a test schema. */
export function schemaDatabaseUrl(schema: string): string {
  const url = new URL(testDatabaseUrl);
  url.searchParams.set("schema", schema);
  return url.toString();
}
