/**
 * Respondent-aware routing over HTTP (`pnpm --filter @sds/sync bench:respondents`): the fake
 * serves SYNC_BENCH_SURVEYS (10,000) live surveys with qualifications and quotas, one in eight
 * grouped and one in thirty a re-contact study with its list; sds-sync runs in this process on
 * each store of SYNC_BENCH_STORES (`sqlite,postgres`; PostgreSQL at SDS_TEST_DATABASE_URL, a
 * fresh schema, skipped when unreachable outside CI) and is waited for until the matcher, the
 * account and the routing data are in. SYNC_BENCH_RESPONDENTS (100,000) respondents get
 * histories through `POST /v1/respondents/history` (0 to 20 past entries, one in a hundred 100
 * to 200). Then autocannon in a child process, SYNC_BENCH_CONNECTIONS (50) connections for
 * SYNC_BENCH_SECONDS (10) each:
 *
 * - `POST /v1/match` with a uid drawn from the respondents (history read per request).
 *   Goal: at least 2,000 matches per second.
 * - `POST /v1/entry-links`, a new token every request, a uid drawn from the respondents and a
 *   survey from the live ones that are not re-contact studies (most pass the rules).
 *   Goal: at least 1,000 links (201s) per second on each store.
 *
 * SYNC_BENCH_LOADS (`match,entry-links`) picks the loads; SYNC_BENCH_LINK_SURVEYS sends the entry
 * links into that many surveys only (hot surveys). Prints a table of each figure against its goal; the figures are written to SYNC_BENCH_JSON when set.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createSeededRandom, DEFAULT_SUPPLIER_ID, RECONTACT_STUDY_TYPE_ID } from "@sds/testing";
import { dropSchema, freshSchemaName, postgresAvailable, schemaDatabaseUrl } from "../test/postgres.ts";
import { importHistories, respondentHistories, respondentPool } from "./respondent-histories.ts";
import { measureInProcess } from "./respondent-in-process.ts";
import { BENCH_TOKEN, benchInventory, matchBodies, startBenchService } from "./bench-service.ts";
import { type MeasuredLoad, runLoad, waitUntilRoutable } from "./respondent-service.ts";

const surveyCount = Number(process.env.SYNC_BENCH_SURVEYS ?? 10_000);
const respondentCount = Number(process.env.SYNC_BENCH_RESPONDENTS ?? 100_000);
const connections = Number(process.env.SYNC_BENCH_CONNECTIONS ?? 50);
const seconds = Number(process.env.SYNC_BENCH_SECONDS ?? 10);
const stores = (process.env.SYNC_BENCH_STORES ?? "sqlite,postgres").split(",").map((store) => store.trim());
const loads = new Set((process.env.SYNC_BENCH_LOADS ?? "match,entry-links").split(",").map((load) => load.trim()));
const goals = { matchesPerSecond: 2000, linksPerSecond: 1000 };

const api = benchInventory(surveyCount, (index) => ({
  Has_Survey_Groups: index % 8 === 0,
  ...(index % 30 === 7 ? { StudyTypeId: RECONTACT_STUDY_TYPE_ID } : {}),
}));
const fake = await api.listen();
const live = api.listSurveys(DEFAULT_SUPPLIER_ID);
const recontactIds = live
  .filter((survey) => survey.StudyTypeId === RECONTACT_STUDY_TYPE_ID)
  .map((survey) => survey.SurveyId);
const recontactPids = recontactIds.flatMap(
  (id) => api.getSurvey(id)?.recontactRespondents.map((respondent) => respondent.PID) ?? [],
);
const uids = respondentPool(respondentCount, recontactPids);
const liveSurveyIds = live.map((survey) => survey.SurveyId);
const recontact = new Set(recontactIds);
/** SYNC_BENCH_LINK_SURVEYS: entry links into only this many surveys (hot surveys, as an earnings ranking makes them); all when unset. */
const linkSurveyCount =
  process.env.SYNC_BENCH_LINK_SURVEYS === undefined ? undefined : Number(process.env.SYNC_BENCH_LINK_SURVEYS);
const linkSurveyIds = liveSurveyIds.filter((id) => !recontact.has(id)).slice(0, linkSurveyCount);
const historyNow = Date.now();

// Respondent profiles from the catalogue: one answer per question with options, a language and a device (as match-http.bench.ts).
const profiles = matchBodies(createSeededRandom(12_345).pick);

interface Row {
  readonly store: string;
  readonly measure: string;
  readonly value: number;
  readonly goal?: number;
  readonly detail: string;
}
const rows: Row[] = [];
const detailOf = (load: MeasuredLoad) =>
  `p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms; ${JSON.stringify(load.statuses)}, ${load.errors} errors; ${load.cpuMsPerRequest.toFixed(3)} ms CPU/request`;
const figures: Record<string, unknown> = {
  surveys: surveyCount,
  groupedSurveys: live.filter((survey) => survey.Has_Survey_Groups).length,
  recontactStudies: recontactIds.length,
  respondents: uids.length,
  connections,
  seconds,
  node: process.version,
  loadAverageBefore: loadavg(),
};
console.log(
  `load average before: ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")} (${surveyCount} surveys, ${uids.length} respondents)`,
);

for (const store of stores) {
  let databaseUrl: string;
  let cleanUp: () => Promise<void>;
  if (store === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "sds-sync-respondent-bench-"));
    databaseUrl = `sqlite:${join(directory, "sds.db")}`;
    cleanUp = () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    };
  } else if (store === "postgres") {
    if (!(await postgresAvailable())) continue;
    const schema = freshSchemaName("sds_bench");
    databaseUrl = schemaDatabaseUrl(schema);
    cleanUp = () => dropSchema(schema);
  } else throw new Error(`SYNC_BENCH_STORES names ${store}: sqlite or postgres`);

  const service = await startBenchService(fake.baseUrl, databaseUrl, { SYNC_MAX_ENTRIES_PER_DAY: "20" });
  try {
    const ready = await waitUntilRoutable(service);
    console.log(
      `[${store}] routable after ${ready.seconds.toFixed(1)} s: ${ready.matcherSurveys} surveys in the matcher, groups of ${ready.groupSurveys}, ` +
        `${ready.recontactStudies} re-contact lists, stats of ${ready.statsSurveys}`,
    );
    const seeded = await importHistories({
      url: service.url,
      token: BENCH_TOKEN,
      entries: respondentHistories({ uids, liveSurveyIds, now: historyNow }),
    });
    console.log(
      `[${store}] imported ${seeded.entries} past entries of ${uids.length} respondents in ${seeded.seconds.toFixed(1)} s (${Math.round(seeded.entriesPerSecond)} entries/s, ${seeded.batches} batches)`,
    );
    const inProcess = await measureInProcess(service.loop, { profiles, uids, surveyIds: linkSurveyIds });
    console.log(`[${store}] in process, per request: ${JSON.stringify(inProcess)}`);

    const matches = loads.has("match")
      ? await runLoad(service, "/v1/match", { kind: "match", profiles, uids }, connections, seconds, `${store}-match`)
      : undefined;
    if (matches)
      rows.push({
        store,
        measure: "POST /v1/match (matches/s)",
        value: matches.requestsPerSecond,
        goal: goals.matchesPerSecond,
        detail: detailOf(matches),
      });
    const links = loads.has("entry-links")
      ? await runLoad(
          service,
          "/v1/entry-links",
          {
            kind: "entry-link",
            surveyIds: linkSurveyIds,
            uids,
            tokenPrefix: `bench-${store}-${Date.now().toString(36)}`,
          },
          connections,
          seconds,
          `${store}-entry-links`,
        )
      : undefined;
    const linksPerSecond = (links?.statuses["201"] ?? 0) / seconds;
    if (links)
      rows.push({
        store,
        measure: "POST /v1/entry-links (201s/s)",
        value: linksPerSecond,
        goal: goals.linksPerSecond,
        detail: detailOf(links),
      });
    figures[store] = { ready, seeded, inProcess, matches, links: links && { ...links, linksPerSecond } };
  } finally {
    await service.stop();
    await cleanUp();
  }
}
await fake.close();
await api.close();

figures.loadAverageAfter = loadavg();
console.log(
  `\nload average after: ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}; ${connections} connections, ${seconds} s each`,
);
console.table(
  rows.map((row) => ({
    store: row.store,
    measure: row.measure,
    measured: Math.round(row.value),
    goal: row.goal === undefined ? "" : `>= ${row.goal}`,
    result: row.goal === undefined ? "" : row.value >= row.goal ? "PASS" : "MISS",
    detail: row.detail,
  })),
);
figures.rows = rows.map((row) => ({ ...row, pass: row.goal === undefined ? null : row.value >= row.goal }));
if (process.env.SYNC_BENCH_JSON) writeFileSync(process.env.SYNC_BENCH_JSON, `${JSON.stringify(figures, null, 2)}\n`);
