import { query, type Program } from "./loop-program.ts";

/*
 * What respondent-aware routing and yield ranking read about live surveys (survey groups,
 * re-contact lists, the marketplace's stats, and how each was last fetched), written by the
 * leader's refresher and read by every replica's matcher. Every write bumps the
 * `routing-data` counter, so a replica re-reads only when something changed.
 */

/** The operations the refresher fetches per survey. */
export const routingDataKinds = ["groups", "recontact", "stats"] as const;
/** One of {@link routingDataKinds}. */
export type RoutingDataKind = (typeof routingDataKinds)[number];

/** How the last fetch of one kind for one survey went. */
export type FetchStatus = "ok" | "missing" | "unreadable";

/** The marketplace's stats of one survey, as kept. */
export interface StoredSurveyStats {
  /** In [0, 1]. */
  readonly conversion: number | null;
  readonly effectiveEpc: number | null;
  readonly lengthOfInterview: number | null;
  readonly scope: string;
}

/** One fetch's result to store. */
export type RoutingDataWrite =
  | { readonly kind: "groups"; readonly surveyId: number; readonly groupIds: readonly number[] }
  | {
      readonly kind: "recontact";
      readonly surveyId: number;
      readonly respondents: readonly { readonly uid: string; readonly active: boolean }[];
    }
  | { readonly kind: "stats"; readonly surveyId: number; readonly stats: StoredSurveyStats | undefined }
  | {
      readonly kind: "failed";
      readonly surveyId: number;
      readonly of: RoutingDataKind;
      readonly status: "missing" | "unreadable";
      readonly problem: string;
    };

/** Everything the matcher needs of the routing data, read in one go. */
export interface RoutingData {
  /** Bumped by every write: equal versions hold equal data. */
  readonly version: number;
  readonly groups: ReadonlyMap<number, readonly number[]>;
  /** Active uids per re-contact study whose list was read. */
  readonly recontact: ReadonlyMap<number, ReadonlySet<string>>;
  readonly stats: ReadonlyMap<number, StoredSurveyStats>;
  /** The last fetch of each kind per survey. */
  readonly fetches: readonly {
    readonly surveyId: number;
    readonly kind: RoutingDataKind;
    readonly status: FetchStatus;
    readonly problem: string | null;
    readonly fetchedAt: string;
  }[];
}

const BUMP_VERSION =
  "INSERT INTO loop_counters (name, value) VALUES ('routing-data', 1) ON CONFLICT (name) DO UPDATE SET value = loop_counters.value + 1";
const RECORD_FETCH = `INSERT INTO loop_routing_fetches (survey_id, kind, status, problem, fetched_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (survey_id, kind) DO UPDATE SET status = excluded.status, problem = excluded.problem, fetched_at = excluded.fetched_at`;

/** Stores the results of one round of fetches, in one transaction. */
export function* writeRoutingData(writes: readonly RoutingDataWrite[], at: Date): Program<void> {
  const iso = at.toISOString();
  for (const write of writes) {
    switch (write.kind) {
      case "groups":
        yield* query("DELETE FROM loop_survey_groups WHERE survey_id = ?", write.surveyId);
        for (const groupId of new Set(write.groupIds))
          yield* query("INSERT INTO loop_survey_groups (survey_id, group_id) VALUES (?, ?)", write.surveyId, groupId);
        yield* query(RECORD_FETCH, write.surveyId, "groups", "ok", null, iso);
        break;
      case "recontact":
        yield* query("DELETE FROM loop_recontact_respondents WHERE survey_id = ?", write.surveyId);
        for (const respondent of write.respondents) {
          yield* query(
            "INSERT INTO loop_recontact_respondents (survey_id, uid, active) VALUES (?, ?, ?) ON CONFLICT (survey_id, uid) DO UPDATE SET active = excluded.active",
            write.surveyId,
            respondent.uid,
            respondent.active ? 1 : 0,
          );
        }
        yield* query(RECORD_FETCH, write.surveyId, "recontact", "ok", null, iso);
        break;
      case "stats":
        if (write.stats === undefined)
          yield* query("DELETE FROM loop_survey_stats WHERE survey_id = ?", write.surveyId);
        else {
          const { conversion, effectiveEpc, lengthOfInterview, scope } = write.stats;
          yield* query(
            `INSERT INTO loop_survey_stats (survey_id, conversion, effective_epc, length_of_interview, scope) VALUES (?, ?, ?, ?, ?)
              ON CONFLICT (survey_id) DO UPDATE SET conversion = excluded.conversion, effective_epc = excluded.effective_epc, length_of_interview = excluded.length_of_interview, scope = excluded.scope`,
            write.surveyId,
            conversion,
            effectiveEpc,
            lengthOfInterview,
            scope,
          );
        }
        yield* query(RECORD_FETCH, write.surveyId, "stats", "ok", null, iso);
        break;
      case "failed":
        // A group list that cannot be read routes as if there were no groups (unless configured otherwise, decided by the reader); a re-contact list that cannot be read keeps its study out.
        if (write.of === "groups") yield* query("DELETE FROM loop_survey_groups WHERE survey_id = ?", write.surveyId);
        if (write.of === "recontact")
          yield* query("DELETE FROM loop_recontact_respondents WHERE survey_id = ?", write.surveyId);
        yield* query(RECORD_FETCH, write.surveyId, write.of, write.status, write.problem, iso);
        break;
    }
  }
  if (writes.length > 0) yield* query(BUMP_VERSION);
}

/** Forgets the routing data of surveys that are no longer live. */
export function* forgetRoutingData(surveyIds: readonly number[]): Program<void> {
  for (const surveyId of surveyIds) {
    for (const table of [
      "loop_survey_groups",
      "loop_recontact_respondents",
      "loop_routing_fetches",
      "loop_survey_stats",
    ])
      yield* query(`DELETE FROM ${table} WHERE survey_id = ?`, surveyId);
  }
  if (surveyIds.length > 0) yield* query(BUMP_VERSION);
}

/** The version of the routing data: a replica re-reads it only when this moved. */
export function* routingDataVersion(): Program<number> {
  const [row] = yield* query("SELECT value FROM loop_counters WHERE name = 'routing-data'");
  return Number(row?.value ?? 0);
}

const nullableNumber = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

/** All the routing data. */
export function* readRoutingData(): Program<RoutingData> {
  const version = yield* routingDataVersion();
  const groups = new Map<number, number[]>();
  for (const row of yield* query("SELECT survey_id, group_id FROM loop_survey_groups ORDER BY survey_id, group_id")) {
    const surveyId = Number(row.survey_id);
    const list = groups.get(surveyId) ?? [];
    list.push(Number(row.group_id));
    groups.set(surveyId, list);
  }
  const recontact = new Map<number, Set<string>>();
  for (const row of yield* query("SELECT survey_id, uid FROM loop_recontact_respondents WHERE active = 1")) {
    const surveyId = Number(row.survey_id);
    const set = recontact.get(surveyId) ?? new Set<string>();
    set.add(String(row.uid));
    recontact.set(surveyId, set);
  }
  const fetches = (yield* query("SELECT survey_id, kind, status, problem, fetched_at FROM loop_routing_fetches")).map(
    (row) => ({
      surveyId: Number(row.survey_id),
      kind: row.kind as RoutingDataKind,
      status: row.status as FetchStatus,
      problem: typeof row.problem === "string" ? row.problem : null,
      fetchedAt: row.fetched_at instanceof Date ? row.fetched_at.toISOString() : String(row.fetched_at),
    }),
  );
  // A re-contact study whose list was read but holds no active uid is still a list (empty): nobody may enter.
  for (const fetch of fetches)
    if (fetch.kind === "recontact" && fetch.status === "ok" && !recontact.has(fetch.surveyId))
      recontact.set(fetch.surveyId, new Set());
  const stats = new Map<number, StoredSurveyStats>();
  for (const row of yield* query("SELECT * FROM loop_survey_stats")) {
    stats.set(Number(row.survey_id), {
      conversion: nullableNumber(row.conversion),
      effectiveEpc: nullableNumber(row.effective_epc),
      lengthOfInterview: nullableNumber(row.length_of_interview),
      scope: String(row.scope),
    });
  }
  return { version, groups, recontact, stats, fetches };
}

/** Per survey with outcomes: what yield ranking learns from (decided entries, standing completes, the cut-off's time). */
export interface SurveyYieldCounts {
  readonly surveyId: number;
  readonly decided: number;
  readonly completes: number;
  readonly cutoffReachedAt: number | null;
}

/** {@link SurveyYieldCounts} of every survey with an entry: O(surveys). */
export function* yieldCounts(): Program<SurveyYieldCounts[]> {
  return (yield* query(
    "SELECT survey_id, completes, terminates, overquotas, security, cutoff_reached_at FROM loop_survey_counts",
  )).map((row) => ({
    surveyId: Number(row.survey_id),
    decided: Number(row.completes) + Number(row.terminates) + Number(row.overquotas) + Number(row.security),
    completes: Number(row.completes),
    cutoffReachedAt: nullableNumber(row.cutoff_reached_at),
  }));
}
