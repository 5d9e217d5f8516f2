import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeSupplierApi } from "@sds/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import { withStore } from "./database-location.ts";
import { dropSchema, freshSchemaName, postgresAvailable, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { ensureSystemTool } from "./system-tool.ts";

const run = promisify(execFile);
const deploy = fileURLToPath(new URL("../deploy/", import.meta.url));

/**
 * The backup and restore commands of docs/runbook.md, run as written (through bash, with the
 * runbook's variables set), against a running service that keeps writing.
 */
const runbook = {
  sqliteBackup: 'node "$SDS_SYNC/deploy/sqlite-backup.js" "$DB" "$BACKUP"',
  sqliteCliBackup: 'sqlite3 "$DB" ".backup \'$BACKUP\'"',
  sqliteRestore: 'cp "$BACKUP" "$DB" && rm -f "$DB-wal" "$DB-shm"',
  pgDump: 'pg_dump --format=custom --schema="$SCHEMA" --file="$DUMP" "$PGURL"',
  pgRestore: 'psql "$PGURL" --quiet -c "DROP SCHEMA IF EXISTS \\"$SCHEMA\\" CASCADE" && pg_restore --dbname="$PGURL" --exit-on-error "$DUMP"',
} as const;

const bash = (command: string, env: Record<string, string>) => run("bash", ["-euo", "pipefail", "-c", command], { env: { ...process.env, PATH: `${join(process.execPath, "..")}:${process.env.PATH ?? ""}`, SDS_SYNC: join(deploy, ".."), ...env } });

const sqlite3 = ensureSystemTool("sqlite3", "sqlite3", "the sqlite3 CLI backup command");
const pgDump = ensureSystemTool("pg_dump", "postgresql-client", "the pg_dump/pg_restore runbook test");
const pgAvailable = pgDump !== undefined && (await postgresAvailable());

/** What a store holds, as a consumer sees it. */
const snapshot = (database: DatabaseConfig) =>
  withStore(database, async (store) => {
    const page = await store.listSurveys({ status: "all", limit: 1000 });
    return {
      surveys: page.surveys.map((survey) => [survey.id, survey.status]),
      latestSequence: await store.latestSequence(),
      changes: (await store.listChanges(0, 1000)).length,
      runs: (await store.listRuns(1000)).length,
    };
  });

describe("backup and restore, as the runbook says", () => {
  let directory: string;
  let api: FakeSupplierApi;
  const harnesses: ServiceHarness[] = [];
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "sds-sync-backup-"));
    api = createFakeSupplierApi({ suppliers: [{ supplierId: DEFAULT_SUPPLIER_ID, apiKey: DEFAULT_API_KEY, surveys: 30 }] });
  });
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
    await api.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Upstream churn and a cycle, so the store moves on. */
  const churn = async (harness: ServiceHarness) => {
    const [first, second] = api.listSurveys(DEFAULT_SUPPLIER_ID);
    api.closeSurvey(first?.SurveyId ?? 0);
    api.updateSurvey(second?.SurveyId ?? 0, { Cpi: "8.80" });
    api.addSurvey(DEFAULT_SUPPLIER_ID);
    expect((await harness.request("/v1/sync/run", { method: "POST" })).status).toBe(200);
  };
  const start = async (database: DatabaseConfig) => {
    const harness = await startServiceHarness({ api, database });
    harnesses.push(harness);
    return harness;
  };

  /** Back up while running, move on, stop, restore, check the copy, start again and catch up. */
  async function roundTrip(database: DatabaseConfig, backup: () => Promise<unknown>, restore: () => Promise<unknown>) {
    const first = await start(database);
    await churn(first);
    await backup();
    const atBackup = await snapshot(database);
    expect(atBackup.changes).toBeGreaterThan(30);
    await churn(first);
    const beforeRestore = await snapshot(database);
    expect(beforeRestore.latestSequence).toBeGreaterThan(atBackup.latestSequence);
    await first.close();
    harnesses.splice(harnesses.indexOf(first), 1);

    await restore();
    expect(await snapshot(database)).toEqual(atBackup);

    const second = await start(database);
    expect((await second.request("/readyz")).status).toBe(200);
    const caughtUp = await snapshot(database);
    expect(caughtUp.surveys).toEqual(beforeRestore.surveys);
    // The feed continues from the backup's counter: sequences after it are issued again (see the runbook).
    expect(caughtUp.latestSequence).toBeGreaterThan(atBackup.latestSequence);
  }

  it("backs SQLite up online with the backup script, and restores it by copying the file back", async () => {
    const env = { DB: join(directory, "sds.db"), BACKUP: join(directory, "sds-backup.db") };
    const output = { stdout: "" };
    await roundTrip(
      { kind: "sqlite", path: env.DB },
      async () => {
        output.stdout = (await bash(runbook.sqliteBackup, env)).stdout;
      },
      () => bash(runbook.sqliteRestore, env),
    );
    expect(output.stdout).toMatch(/integrity ok/);
  });

  it.skipIf(!sqlite3)("backs SQLite up online with the sqlite3 CLI, and restores it by copying the file back", async () => {
    const env = { DB: join(directory, "sds.db"), BACKUP: join(directory, "sds-cli-backup.db") };
    await roundTrip({ kind: "sqlite", path: env.DB }, () => bash(runbook.sqliteCliBackup, env), () => bash(runbook.sqliteRestore, env));
  });

  it.skipIf(!pgAvailable)("dumps a PostgreSQL schema online with pg_dump and restores it with pg_restore", async () => {
    const schema = freshSchemaName("sds_sync_backup");
    const env = { PGURL: testDatabaseUrl, SCHEMA: schema, DUMP: join(directory, "sds.dump") };
    try {
      await roundTrip({ kind: "postgres", connectionString: testDatabaseUrl, schema }, () => bash(runbook.pgDump, env), () => bash(runbook.pgRestore, env));
    } finally {
      await dropSchema(schema);
    }
  });
});
