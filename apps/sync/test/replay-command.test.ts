import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EncryptionSettings } from "@sds/schemas";
import { createFakeSupplierApi, DEFAULT_API_KEY, DEFAULT_SUPPLIER_ID, type FakeSupplierApi } from "@sds/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { DatabaseConfig } from "../src/config/config.ts";
import { runReplayCommand } from "../src/replay/replay-command.ts";
import type { ReplayReport } from "../src/replay/replay-report.ts";
import { waitFor } from "./harness.ts";
import { screenedSurvey } from "./loop-surveys.ts";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl, testDatabaseUrl } from "./postgres.ts";
import { startServiceHarness, type ServiceHarness } from "./service-harness.ts";

/*
 * `sds-sync replay` on a store a running sds-sync wrote (entries issued and outcomes received over
 * HTTP), on both stores: a history where the survey earnings ranks first never completes and the
 * other always does, so yield clearly wins; and the command's refusals with their exit statuses.
 */

const unsigned: EncryptionSettings = {
  Enabled: false,
  Algorithm: "SHA256",
  QueryParameter: "hash",
  EncryptionKey: null,
};
const [STALLS, CONVERTS] = [9301, 9302] as const;
const survey = (id: number, cpi: string, ir: string) =>
  screenedSurvey({
    SurveyId: id,
    Cpi: cpi,
    Ir: ir,
    SurveyUrl: `https://survey.example.com/s/${id}?rid=[%RID%]`,
    StudyTypeId: 1,
  });
const ENTRIES = 60;

const pgAvailable = await postgresAvailable();
const stores: [string, (directory: string) => { database: DatabaseConfig; url: string }][] = [
  [
    "SQLite",
    (directory) => ({
      database: { kind: "sqlite", path: join(directory, "sds.db") },
      url: `sqlite:${join(directory, "sds.db")}`,
    }),
  ],
];
/** The PostgreSQL schemas made, dropped after the file. */
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema).catch(() => undefined);
});
if (pgAvailable) {
  stores.push([
    "PostgreSQL",
    () => {
      const schema = freshSchemaName("sds_sync_replay");
      schemas.push(schema);
      return {
        database: { kind: "postgres", connectionString: testDatabaseUrl, schema },
        url: schemaDatabaseUrl(schema),
      };
    },
  ]);
}

/** Runs the command, collecting what it writes. */
async function replay(argv: readonly string[], env: NodeJS.ProcessEnv) {
  let out = "";
  let err = "";
  const status = await runReplayCommand(
    argv,
    env,
    { write: (text) => void (out += text) },
    { write: (text) => void (err += text) },
  );
  return { status, out, err };
}

describe.each(stores)("sds-sync replay on %s", (_name, storeFor) => {
  let harness: ServiceHarness | undefined;
  let api: FakeSupplierApi | undefined;
  const directory = mkdtempSync(join(tmpdir(), "sds-sync-replay-"));
  afterEach(async () => {
    await harness?.close();
    await api?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("replays the recorded entries: yield, learning that the survey earnings prefers never completes, earns more per matched entry", async () => {
    const { database, url } = storeFor(directory);
    api = createFakeSupplierApi({
      suppliers: [
        {
          supplierId: DEFAULT_SUPPLIER_ID,
          apiKey: DEFAULT_API_KEY,
          surveys: [survey(STALLS, "4.00", "50"), survey(CONVERTS, "2.00", "20")],
          account: { OutgoingEncryption: unsigned },
        },
      ],
    });
    api.setSurveyStats(STALLS, {});
    api.setSurveyStats(CONVERTS, {});
    harness = await startServiceHarness({ api, database, config: { maxClosureShare: 1 } });
    const service = harness;
    // The matcher follows the store about once a second: the surveys must be live in it before links are issued.
    await waitFor(() => service.service.loop.liveMatcher.matcher.size >= 2, 20_000);
    for (let index = 0; index < ENTRIES; index++) {
      const surveyId = index % 2 === 0 ? STALLS : CONVERTS;
      const token = `replay-${index}`;
      const issued = await service.request("/v1/entry-links", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ surveyId, token, uid: `u-${index}` }),
      });
      expect(issued.status, await issued.clone().text()).toBe(201);
      const outcome = surveyId === CONVERTS ? "complete" : "terminate";
      expect((await fetch(`${service.service.outcomesUrl}/v1/outcomes/${outcome}?vq_token=${token}`)).status).toBe(200);
    }
    // One entry still pending: it shows the survey was live, and is not evaluated.
    expect(
      (
        await service.request("/v1/entry-links", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ surveyId: STALLS, token: "pending", uid: "u-pending" }),
        })
      ).status,
    ).toBe(201);

    const { status, out, err } = await replay(["--json", "--seed", "3"], { DATABASE_URL: url });
    expect(err).toBe("");
    expect(status).toBe(0);
    const report = JSON.parse(out) as ReplayReport;
    expect(report.entries).toMatchObject({ recorded: ENTRIES + 1, decided: ENTRIES, pending: 1, surveysWithoutIr: 0 });
    const [recorded, earnings, yieldPolicy] = report.policies;
    expect(recorded).toMatchObject({
      policy: "recorded",
      matched: ENTRIES,
      completes: ENTRIES / 2,
      earningsPerEntry: 1,
    });
    expect(earnings).toMatchObject({ policy: "earnings", evaluated: ENTRIES, completes: 0, earningsPerEntry: 0 });
    expect(yieldPolicy?.policy).toBe("yield");
    expect(yieldPolicy?.completes).toBeGreaterThan(0);
    expect(yieldPolicy?.earningsPerEntry).toBeGreaterThan(0.5);
    // The same seed gives the same figures; the table names each policy and the caveat.
    expect(JSON.parse((await replay(["--json", "--seed", "3"], { DATABASE_URL: url })).out)).toEqual(report);
    const table = await replay(["--policy", "yield", "--seed", "3"], { DATABASE_URL: url });
    expect(table.out).toMatch(/^recorded\s+60\s+60\s+30\s+50\.0 %\s+60\.00\s+1\.0000$/m);
    expect(table.out).toMatch(/^yield\s+\d+\s+60\s/m);
    expect(table.out).not.toMatch(/^earnings/m);
    expect(table.out).toMatch(/caveat: an offline, counterfactual estimate/);
  });
});

describe("sds-sync replay refuses", () => {
  it("a command line it cannot run with 64 and the usage", async () => {
    for (const argv of [["--policy", "revenue"], ["--seed", "-1"], ["--seed", "x"], ["extra"], ["--fast"]]) {
      const { status, err } = await replay(argv, { DATABASE_URL: "sqlite:/nonexistent/sds.db" });
      expect(status, argv.join(" ")).toBe(64);
      expect(err).toMatch(/^sds-sync replay: [\s\S]+\n\nUsage: sds-sync replay/);
    }
  });

  it("a bad setting with 78, naming the variable and never the password", async () => {
    const database = await replay([], { DATABASE_URL: "mysql://user:hunter2@db/x" });
    expect(database.status).toBe(78);
    expect(database.err).toMatch(/DATABASE_URL: must start with sqlite:/);
    expect(database.err).not.toMatch(/hunter2/);
    const strength = await replay([], { DATABASE_URL: "sqlite:/nonexistent/sds.db", SYNC_YIELD_PRIOR_STRENGTH: "0" });
    expect(strength.status).toBe(78);
    expect(strength.err).toMatch(/SYNC_YIELD_PRIOR_STRENGTH/);
  });

  it("a store that does not exist with 1, naming the file", async () => {
    expect(await replay([], { DATABASE_URL: "sqlite:/nonexistent/sds.db" })).toEqual({
      status: 1,
      out: "",
      err: "sds-sync replay: no store at /nonexistent/sds.db: replay reads the store a running sds-sync wrote (DATABASE_URL)\n",
    });
  });

  it("nothing when asked for help", async () => {
    const { status, out } = await replay(["--help"], {});
    expect(status).toBe(0);
    expect(out).toMatch(/^Usage: sds-sync replay \[--policy earnings\|yield\]/);
  });
});
