import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeSupplierApi } from "@sds/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import type { OutcomeKind, OutcomeRecord } from "../src/loop/store/loop-store.ts";
import { withStore } from "./database-location.ts";
import {
  issueEntryLink,
  lifetimeFromFeed,
  readLoopFigures,
  readOutcomeFeed,
  receiveOutcome,
  unsignedOutcomes,
} from "./loop-traffic.ts";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { ensureSystemTool } from "./system-tool.ts";

const run = promisify(execFile);
const deploy = fileURLToPath(new URL("../deploy/", import.meta.url));

/**
 * The backup, restore and move commands of docs/runbook.md, run as written (through bash, with
 * the runbook's variables set, on this test's Node), against a running service that keeps writing.
 */
const runbook = {
  sqliteBackup: 'node "$SDS_SYNC/deploy/sqlite-backup.js" "$DB" "$BACKUP"',
  sqliteCliBackup:
    'sqlite3 "$DB" ".backup \'$BACKUP\'" && sqlite3 "${DB%.db}.loop.db" ".backup \'${BACKUP%.db}.loop.db\'"',
  sqliteRestore: 'node "$SDS_SYNC/deploy/sqlite-restore.js" "$BACKUP" "$DB"',
  pgDump: 'pg_dump --format=custom --schema="$SCHEMA" --file="$DUMP" "$PGURL"',
  pgRestore:
    'psql "$PGURL" --quiet -c "DROP SCHEMA IF EXISTS \\"$SCHEMA\\" CASCADE" && pg_restore --dbname="$PGURL" --exit-on-error "$DUMP"',
  loopToPostgres: 'node "$SDS_SYNC/deploy/loop-to-postgres.js" "$DB" "$DATABASE_URL"',
} as const;

const runbookText = readFileSync(fileURLToPath(new URL("../docs/runbook.md", import.meta.url)), "utf8");

const bash = (command: string, env: Record<string, string>) =>
  run("bash", ["-euo", "pipefail", "-c", command], {
    env: {
      ...process.env,
      PATH: `${join(process.execPath, "..")}:${process.env.PATH ?? ""}`,
      SDS_SYNC: join(deploy, ".."),
      ...env,
    },
  });

const sqlite3 = ensureSystemTool("sqlite3", "sqlite3", "the sqlite3 CLI backup command");
const pgDump = ensureSystemTool("pg_dump", "postgresql-client", "the pg_dump/pg_restore runbook test");
const postgresUp = await postgresAvailable();
const pgAvailable = pgDump !== undefined && postgresUp;

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

/** Entries issued before the backup whose outcomes stream in while it runs. */
const STREAMED_ENTRIES = 40;

describe("docs/runbook.md", () => {
  const lines = runbookText.split("\n").map((line) => line.trim());
  it.each(Object.entries(runbook))(
    "shows the %s command on a line of its own, exactly as the tests run it",
    (_name, command) => {
      expect(lines).toContain(command);
    },
  );
});

describe("backup and restore, as the runbook says", () => {
  let directory: string;
  let api: FakeSupplierApi;
  const harnesses: ServiceHarness[] = [];
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "sds-sync-backup-"));
    api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: 30,
          account: { OutgoingEncryption: unsignedOutcomes },
        },
      ],
    });
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
  const stop = async (harness: ServiceHarness) => {
    harnesses.splice(harnesses.indexOf(harness), 1);
    await harness.close();
  };

  /** A survey churn leaves alone, and its Cpi as entries are issued. */
  const loopSurvey = () => {
    const survey = api.listSurveys(DEFAULT_SUPPLIER_ID)[5];
    return { surveyId: survey?.SurveyId ?? 0, cpi: Number(survey?.Cpi) };
  };

  /**
   * Entry links and every kind of outcome, a reversal (complete, then terminate) and an orphan
   * (an outcome for a token never issued). Returns the entries issued: token → Cpi.
   */
  async function recordLoopTraffic(harness: ServiceHarness, prefix: string): Promise<Map<string, number>> {
    const { surveyId, cpi } = loopSurvey();
    const entries = new Map<string, number>();
    for (let index = 0; index < 8; index++) {
      await issueEntryLink(harness, surveyId, `${prefix}${index}`);
      entries.set(`${prefix}${index}`, cpi);
    }
    const outcomes: [OutcomeKind, string][] = [
      ["complete", "0"],
      ["complete", "1"],
      ["complete", "2"],
      ["terminate", "3"],
      ["overquota", "4"],
      ["security", "5"],
      ["terminate", "1"],
    ];
    for (const [outcome, index] of outcomes) await receiveOutcome(harness, outcome, `${prefix}${index}`);
    await receiveOutcome(harness, "complete", `${prefix}orphan`);
    return entries;
  }

  /**
   * Backs up while the service records outcomes (acknowledged before the command starts, while
   * it runs, and after it), moves on, stops, restores, and checks what the restored service
   * serves: the inventory of the backup's moment (then caught up), and every outcome
   * acknowledged before the backup began, with counts that agree with the feed.
   */
  async function roundTrip(database: DatabaseConfig, backup: () => Promise<unknown>, restore: () => Promise<unknown>) {
    const first = await start(database);
    await churn(first);
    const entries = await recordLoopTraffic(first, "before-");
    const { surveyId, cpi } = loopSurvey();
    for (let index = 0; index < STREAMED_ENTRIES; index++) {
      await issueEntryLink(first, surveyId, `streamed-${index}`);
      entries.set(`streamed-${index}`, cpi);
    }
    const feedBeforeBackup = await readOutcomeFeed(first);

    // Outcomes keep arriving before, while and after the backup runs; once the pool of entries is spent, as orphans.
    const streamed: { token: string; sentAt: number; acknowledgedAt: number }[] = [];
    const backupRun = { over: false };
    const stream = (async () => {
      for (let index = 0; !backupRun.over || streamed.length < 3; index++) {
        const token = index < STREAMED_ENTRIES ? `streamed-${index}` : `streamed-orphan-${index}`;
        const sentAt = performance.now();
        await receiveOutcome(first, index % 2 === 0 ? "complete" : "terminate", token);
        streamed.push({ token, sentAt, acknowledgedAt: performance.now() });
      }
    })();
    // The backup starts while outcomes stream in: once the first was acknowledged.
    await vi.waitFor(
      () => {
        expect(streamed.length).toBeGreaterThan(0);
      },
      { timeout: 30_000, interval: 5 },
    );
    const backupStarted = performance.now();
    try {
      await backup();
    } finally {
      backupRun.over = true;
    }
    const backupEnded = performance.now();
    await stream;
    const atBackup = await snapshot(database);
    expect(atBackup.changes).toBeGreaterThan(30);

    await churn(first);
    await receiveOutcome(first, "complete", "before-7");
    await receiveOutcome(first, "terminate", "after-orphan");
    const beforeRestore = await snapshot(database);
    expect(beforeRestore.latestSequence).toBeGreaterThan(atBackup.latestSequence);
    await stop(first);

    await restore();
    expect(await snapshot(database)).toEqual(atBackup);

    const second = await start(database);
    expect((await second.request("/readyz")).status).toBe(200);
    const caughtUp = await snapshot(database);
    expect(caughtUp.surveys).toEqual(beforeRestore.surveys);
    // The feed continues from the backup's counter: sequences after it are issued again (see the runbook).
    expect(caughtUp.latestSequence).toBeGreaterThan(atBackup.latestSequence);

    const restored = await readOutcomeFeed(second);
    // Every outcome acknowledged before the backup began is served, as it was recorded.
    expect(restored.slice(0, feedBeforeBackup.length)).toEqual(feedBeforeBackup);
    const acknowledgedBefore = streamed.filter((call) => call.acknowledgedAt < backupStarted).map((call) => call.token);
    expect(acknowledgedBefore.length, "outcomes acknowledged before the backup began").toBeGreaterThan(0);
    expect(restored.map((record) => record.token)).toEqual(expect.arrayContaining(acknowledgedBefore));
    // Nothing sent after the backup ended is in it: the restore went back to the backup's moment.
    const sentInTime = new Set([
      ...feedBeforeBackup.map((record) => record.token),
      ...streamed.filter((call) => call.sentAt < backupEnded).map((call) => call.token),
    ]);
    expect(restored.filter((record) => !sentInTime.has(record.token))).toEqual([]);

    // The counts in /v1/sync/status agree with the restored feed.
    const figures = await readLoopFigures(second);
    const { earnings: expectedEarnings, ...expected } = lifetimeFromFeed(restored, entries);
    const { earnings, ...counts } = figures.totals.lifetime;
    expect(counts).toMatchObject(expected);
    expect(earnings).toBeCloseTo(expectedEarnings, 6);
    expect(figures.outcomes).toEqual(countByOutcome(restored));
    expect(figures.orphans.tokens).toBe(
      new Set(restored.filter((record) => record.surveyId === null).map((record) => record.token)).size,
    );

    // The outcome feed goes on from the backup's counter.
    await receiveOutcome(second, "complete", "after-restore");
    expect((await readOutcomeFeed(second)).at(-1)).toMatchObject({
      sequence: (restored.at(-1)?.sequence ?? 0) + 1,
      token: "after-restore",
    });
  }

  it("backs SQLite up online with the backup script (store and loop file), and restores both with the restore script", async () => {
    const env = { DB: join(directory, "sds.db"), BACKUP: join(directory, "sds-backup.db") };
    const output = { backup: "", restore: "" };
    await roundTrip(
      { kind: "sqlite", path: env.DB },
      async () => {
        output.backup = (await bash(runbook.sqliteBackup, env)).stdout;
      },
      async () => {
        output.restore = (await bash(runbook.sqliteRestore, env)).stdout;
      },
    );
    expect(output.backup).toContain(`backed up ${env.DB} to ${env.BACKUP} (`);
    expect(output.backup).toMatch(
      /sds\.loop\.db to .*sds-backup\.loop\.db \(\d+ pages, loop schema version \d+, integrity ok\)/,
    );
    expect(output.backup).toMatch(/consistent: each file is a consistent snapshot/);
    expect(output.restore).toMatch(
      /restored .*sds-backup\.db to .*sds\.db \(schema version \d+, integrity ok\)\nrestored .*sds-backup\.loop\.db to .*sds\.loop\.db \(loop schema version \d+, integrity ok\)/,
    );
  });

  it.skipIf(!sqlite3)(
    "backs both SQLite files up online with the sqlite3 CLI, and restores them with the restore script",
    async () => {
      const env = { DB: join(directory, "sds.db"), BACKUP: join(directory, "sds-cli-backup.db") };
      await roundTrip(
        { kind: "sqlite", path: env.DB },
        () => bash(runbook.sqliteCliBackup, env),
        () => bash(runbook.sqliteRestore, env),
      );
    },
  );

  it.skipIf(!pgAvailable)(
    "dumps a PostgreSQL schema (inventory and loop) online with pg_dump and restores it with pg_restore",
    async () => {
      const schema = freshSchemaName("sds_sync_backup");
      const env = { PGURL: testDatabaseUrl, SCHEMA: schema, DUMP: join(directory, "sds.dump") };
      try {
        await roundTrip(
          { kind: "postgres", connectionString: testDatabaseUrl, schema },
          () => bash(runbook.pgDump, env),
          () => bash(runbook.pgRestore, env),
        );
      } finally {
        // Every service on the schema stops first: a DROP SCHEMA under a running one can deadlock with it, and hide why the test failed.
        for (const harness of harnesses.splice(0)) await harness.close();
        await dropSchema(schema);
      }
    },
  );

  it.skipIf(!postgresUp)(
    "moves the loop's records from SQLite to PostgreSQL with loop-to-postgres.js: every outcome and the same counts",
    async () => {
      const schema = freshSchemaName("sds_sync_move");
      const env = { DB: join(directory, "sds.db"), DATABASE_URL: schemaDatabaseUrl(schema) };
      const postgres: DatabaseConfig = { kind: "postgres", connectionString: testDatabaseUrl, schema };
      try {
        const onSqlite = await start({ kind: "sqlite", path: env.DB });
        await recordLoopTraffic(onSqlite, "moved-");
        const feed = await readOutcomeFeed(onSqlite);
        const figures = await readLoopFigures(onSqlite);
        await stop(onSqlite);

        // sds-sync started once on PostgreSQL creates its tables, as the runbook says.
        await stop(await start(postgres));
        const { stdout } = await bash(runbook.loopToPostgres, env);
        expect(stdout).toMatch(new RegExp(`loop_outcomes\\s+${feed.length}\\n`));
        expect(stdout).toMatch(/loop_entries\s+8\n/);
        expect(stdout).toContain(`outcome feed at sequence ${feed.length}`);
        expect(stdout).not.toContain("postgres@");

        const onPostgres = await start(postgres);
        expect(await readOutcomeFeed(onPostgres)).toEqual(feed);
        expect(await readLoopFigures(onPostgres)).toEqual(figures);
        expect(figures.totals.lifetime).toMatchObject({
          entries: 8,
          completes: 2,
          terminates: 2,
          overquotas: 1,
          securityTerminates: 1,
          reversals: 1,
        });
        await receiveOutcome(onPostgres, "complete", "moved-7");
        expect((await readOutcomeFeed(onPostgres)).at(-1)).toMatchObject({
          sequence: feed.length + 1,
          token: "moved-7",
          surveyId: loopSurvey().surveyId,
        });

        // A second run finds the records there and changes nothing.
        const again = await bash(runbook.loopToPostgres, env).then(
          () => ({ code: 0, stderr: "" }),
          (error: unknown) => error as { code: number; stderr: string },
        );
        expect(again.code).toBe(1);
        expect(again.stderr).toMatch(
          /already holds loop records \(loop_counters: \d+ non-zero counters, loop_entries: 8 rows/,
        );
        expect(await readOutcomeFeed(onPostgres)).toHaveLength(feed.length + 1);
      } finally {
        await dropSchema(schema);
      }
    },
  );
});

function countByOutcome(feed: readonly OutcomeRecord[]): Record<OutcomeKind, number> {
  const counts: Record<OutcomeKind, number> = { complete: 0, terminate: 0, overquota: 0, security: 0 };
  for (const record of feed) counts[record.outcome] += 1;
  return counts;
}
