import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { FakeSupplierApi } from "@sds/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseConfig, SyncConfig } from "../src/config/config.ts";
import { outcomeMigrations } from "../src/loop/store/loop-migrations.ts";
import { waitFor } from "./harness.ts";
import { loopFake, loopSurvey } from "./loop-surveys.ts";
import { issueEntryLink, postJson, readLoopFigures, receiveOutcome } from "./loop-traffic.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";
import { storeCases } from "./store-cases.ts";

/*
 * Money at ingest (issue 32): a Cpi above SYNC_MAX_CPI (default 100), negative or not a number is
 * quarantined by the sync cycle with the reason, in the quarantine GET /v1/sync/status lists for
 * malformed upstream records; it is never stored, so never routed nor summed. And money an
 * earlier version stored as NaN or Infinity (a Cpi of 400 nines before loop migration 9's check)
 * is repaired when the store opens, instead of failing every read of it with 503 for good.
 */

const { stores, usable } = storeCases("sds_sync_money_ingest");

const [PRICED, AT_MAX, ABOVE_MAX, NEGATIVE, HUGE] = [9601, 9602, 9603, 9604, 9605] as const;
const inventory = [
  loopSurvey(PRICED, { Cpi: "2.50" }),
  loopSurvey(AT_MAX, { Cpi: "100" }),
  loopSurvey(ABOVE_MAX, { Cpi: "100.01" }),
  loopSurvey(NEGATIVE, { Cpi: "-50.00" }),
  loopSurvey(HUGE, { Cpi: "9".repeat(400) }),
];

interface QuarantineEntry {
  readonly surveyId: number | null;
  readonly source: string;
  readonly issues: readonly { path: string[]; code: string; message: string }[];
}

describe.each(stores)("money at ingest on $name", (store) => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  const directories: string[] = [];
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    harness = undefined;
    api = undefined;
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  /** The store of a test: PostgreSQL's fresh schema, or a SQLite file the test can open itself. */
  function databaseOf(): DatabaseConfig {
    const database = store.database();
    if (database) return database;
    const directory = mkdtempSync(join(tmpdir(), "sds-money-ingest-"));
    directories.push(directory);
    return { kind: "sqlite", path: join(directory, "sds.db") };
  }

  async function start(database: DatabaseConfig, config: Partial<SyncConfig> = {}): Promise<ServiceHarness> {
    api ??= loopFake(inventory);
    harness = await startServiceHarness({ api, database, config: { maxClosureShare: 1, ...config } });
    return harness;
  }

  it("quarantines a Cpi above SYNC_MAX_CPI, negative or too large for a number, and routes one of exactly 100", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start(databaseOf());
    const status = (await (await service.request("/v1/sync/status")).json()) as { quarantine: QuarantineEntry[] };
    const quarantined = new Map(status.quarantine.map((entry) => [entry.surveyId, entry]));
    for (const surveyId of [ABOVE_MAX, NEGATIVE, HUGE]) {
      const entry = quarantined.get(surveyId);
      expect(entry, `survey ${surveyId} in quarantine`).toMatchObject({ source: "surveys" });
      expect(entry?.issues).toEqual([
        expect.objectContaining({
          path: ["Cpi"],
          code: "not_a_price",
          message: expect.stringMatching(/Cpi/) as string,
        }),
      ]);
      // Never stored: not in the read API, not linkable.
      expect((await service.request(`/v1/surveys/${surveyId}`)).status).toBe(404);
      expect((await postJson(service, "/v1/entry-links", { surveyId, token: `t-${surveyId}`, uid: "u" })).status).toBe(
        404,
      );
    }
    expect(quarantined.get(ABOVE_MAX)?.issues).toEqual([
      expect.objectContaining({ message: expect.stringContaining("SYNC_MAX_CPI") as string }),
    ]);
    expect(quarantined.has(AT_MAX)).toBe(false);
    expect(quarantined.has(PRICED)).toBe(false);

    await waitFor(async () => {
      const matched = (await (await postJson(service, "/v1/match", { answers: {}, limit: 50 })).json()) as {
        surveys: { SurveyId: number }[];
      };
      return (
        matched.surveys
          .map((survey) => survey.SurveyId)
          .sort()
          .join() === [PRICED, AT_MAX].sort().join()
      );
    }, 20_000);
    await issueEntryLink(service, AT_MAX, "at-max");
    await receiveOutcome(service, "complete", "at-max");
    const figures = await readLoopFigures(service);
    expect(figures.totals.lifetime.earnings).toBe(100);
  });

  it("takes SYNC_MAX_CPI from the configuration", async (context) => {
    if (!usable(store)) context.skip();
    const service = await start(databaseOf(), { maxCpi: 2 });
    const status = (await (await service.request("/v1/sync/status")).json()) as { quarantine: QuarantineEntry[] };
    const ids = status.quarantine.map((entry) => entry.surveyId);
    expect(ids).toEqual(expect.arrayContaining([PRICED, AT_MAX, ABOVE_MAX, NEGATIVE, HUGE]));
  });

  it("holds out of routing a stored survey whose Cpi is above a lowered SYNC_MAX_CPI", async (context) => {
    if (!usable(store)) context.skip();
    const database = databaseOf();
    await (await start(database)).close();
    harness = undefined;
    const service = await start(database, { maxCpi: 50 });
    // Stored while 100 was taken; the list has not changed, so the cycle does not look at it again.
    expect((await service.request(`/v1/surveys/${AT_MAX}`)).status).toBe(200);
    const refused = await postJson(service, "/v1/entry-links", { surveyId: AT_MAX, token: "lowered", uid: "u" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: "survey_unroutable" } });
    expect(await (await service.request("/metrics")).text()).toContain('sds_sync_surveys_unroutable{reason="price"} 1');
    await issueEntryLink(service, PRICED, "still-priced");
  });

  it("repairs amounts an earlier version stored as NaN or Infinity, so reads and outcomes answer again", async (context) => {
    if (!usable(store)) context.skip();
    const database = databaseOf();
    const first = await start(database);
    await issueEntryLink(first, PRICED, "good-1");
    await receiveOutcome(first, "complete", "good-1");
    await issueEntryLink(first, PRICED, "poisoned-1");
    await receiveOutcome(first, "complete", "poisoned-1");
    await issueEntryLink(first, AT_MAX, "poisoned-2");
    await first.close();
    harness = undefined;

    // As an earlier version left them: an entry's Cpi and the totals it reached are not numbers, in a store as it was before the repair.
    await poison(database);
    const service = await start(database);
    const status = await service.request("/v1/sync/status");
    expect(status.status, await status.clone().text()).toBe(200);
    const figures = await readLoopFigures(service);
    for (const window of ["lifetime", "last24h", "last7d"] as const) {
      expect(Number.isFinite(figures.totals[window].earnings), window).toBe(true);
      // The poisoned entries earn nothing; the good one its 2.50.
      expect(figures.totals[window].earnings, window).toBe(2.5);
    }
    // Outcomes for the poisoned tokens are recorded again (the marketplace stops retrying), and earn nothing.
    await receiveOutcome(service, "complete", "poisoned-2");
    await receiveOutcome(service, "terminate", "poisoned-1");
    await issueEntryLink(service, PRICED, "good-2");
    await receiveOutcome(service, "complete", "good-2");
    const after = await readLoopFigures(service);
    expect(after.totals.lifetime.earnings).toBe(5);
  });
});

/** Writes NaN and Infinity into the money columns, raw, and sets the loop's ledger back to before the repair. */
/**
 * The repair's migration version. The test sets the store back to just before it by deleting its
 * ledger row and its table, which undoes it alone only while it is the latest migration.
 */
function repairVersion(): number {
  const repair = outcomeMigrations.find((migration) => migration.name === "money stored as NaN or Infinity repaired");
  if (repair === undefined) throw new Error("no money repair migration");
  const latest = outcomeMigrations.at(-1)?.version;
  if (repair.version !== latest)
    throw new Error(
      `the money repair (${repair.version}) is no longer the latest migration (${String(latest)}): undo the later ones here too`,
    );
  return repair.version;
}

async function poison(database: DatabaseConfig): Promise<void> {
  const statements = (infinity: string, nan: string) => [
    `UPDATE loop_entries SET cpi_micros = ${nan} WHERE token = 'poisoned-1'`,
    `UPDATE loop_entries SET cpi_micros = ${infinity} WHERE token = 'poisoned-2'`,
    `UPDATE loop_survey_counts SET earnings_micros = ${nan}`,
    `UPDATE loop_survey_hours SET earnings_micros = ${infinity} WHERE earnings_micros > 0`,
    `UPDATE loop_survey_windows SET earnings_micros = ${nan}`,
    `DELETE FROM loop_schema_migrations WHERE version >= ${String(repairVersion())}`,
    "DROP TABLE IF EXISTS loop_money_repairs",
  ];
  if (database.kind === "sqlite") {
    // SQLite stores no NaN (it becomes NULL, which NOT NULL refuses): infinities stand for both.
    const file = new DatabaseSync(database.path.replace(/\.db$/, ".loop.db"));
    try {
      for (const sql of statements("9e999", "-9e999")) file.exec(sql);
    } finally {
      file.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database.connectionString });
  await client.connect();
  try {
    await client.query(`SET search_path TO ${database.schema}`);
    for (const sql of statements("'Infinity'::numeric", "'NaN'::numeric")) await client.query(sql);
  } finally {
    await client.end();
  }
}
