import { decimal, integer, isoTime, nullable, oneOf, text } from "../../database/columns.ts";
import { execute, first, rows, type Program } from "../../database/program.ts";
import { command, statement } from "../../database/statement.ts";

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

const BUMP_VERSION = command<[]>(
  "INSERT INTO loop_counters (name, value) VALUES ('routing-data', 1) ON CONFLICT (name) DO UPDATE SET value = loop_counters.value + 1",
);
const RECORD_FETCH = command<
  [surveyId: number, kind: RoutingDataKind, status: FetchStatus, problem: string | null, fetchedAt: string]
>(`INSERT INTO loop_routing_fetches (survey_id, kind, status, problem, fetched_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (survey_id, kind) DO UPDATE SET status = excluded.status, problem = excluded.problem, fetched_at = excluded.fetched_at`);
const DELETE_GROUPS = command<[surveyId: number]>("DELETE FROM loop_survey_groups WHERE survey_id = ?");
const INSERT_GROUP = command<[surveyId: number, groupId: number]>(
  "INSERT INTO loop_survey_groups (survey_id, group_id) VALUES (?, ?)",
);
const DELETE_RECONTACT = command<[surveyId: number]>("DELETE FROM loop_recontact_respondents WHERE survey_id = ?");
const UPSERT_RECONTACT = command<[surveyId: number, uid: string, active: number]>(
  "INSERT INTO loop_recontact_respondents (survey_id, uid, active) VALUES (?, ?, ?) ON CONFLICT (survey_id, uid) DO UPDATE SET active = excluded.active",
);
const DELETE_STATS = command<[surveyId: number]>("DELETE FROM loop_survey_stats WHERE survey_id = ?");
const UPSERT_STATS = command<
  [
    surveyId: number,
    conversion: number | null,
    effectiveEpc: number | null,
    lengthOfInterview: number | null,
    scope: string,
  ]
>(`INSERT INTO loop_survey_stats (survey_id, conversion, effective_epc, length_of_interview, scope) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (survey_id) DO UPDATE SET conversion = excluded.conversion, effective_epc = excluded.effective_epc, length_of_interview = excluded.length_of_interview, scope = excluded.scope`);
const DELETE_FETCHES = command<[surveyId: number]>("DELETE FROM loop_routing_fetches WHERE survey_id = ?");

/** Stores the results of one round of fetches, in one transaction. */
export function* writeRoutingData(writes: readonly RoutingDataWrite[], at: Date): Program<void> {
  const iso = at.toISOString();
  for (const write of writes) {
    switch (write.kind) {
      case "groups":
        yield* execute(DELETE_GROUPS, write.surveyId);
        for (const groupId of new Set(write.groupIds)) yield* execute(INSERT_GROUP, write.surveyId, groupId);
        yield* execute(RECORD_FETCH, write.surveyId, "groups", "ok", null, iso);
        break;
      case "recontact":
        yield* execute(DELETE_RECONTACT, write.surveyId);
        for (const respondent of write.respondents)
          yield* execute(UPSERT_RECONTACT, write.surveyId, respondent.uid, respondent.active ? 1 : 0);
        yield* execute(RECORD_FETCH, write.surveyId, "recontact", "ok", null, iso);
        break;
      case "stats":
        if (write.stats === undefined) yield* execute(DELETE_STATS, write.surveyId);
        else {
          const { conversion, effectiveEpc, lengthOfInterview, scope } = write.stats;
          yield* execute(UPSERT_STATS, write.surveyId, conversion, effectiveEpc, lengthOfInterview, scope);
        }
        yield* execute(RECORD_FETCH, write.surveyId, "stats", "ok", null, iso);
        break;
      case "failed":
        // A group list that cannot be read routes as if there were no groups (unless configured otherwise, decided by the reader); a re-contact list that cannot be read keeps its study out.
        if (write.of === "groups") yield* execute(DELETE_GROUPS, write.surveyId);
        if (write.of === "recontact") yield* execute(DELETE_RECONTACT, write.surveyId);
        yield* execute(RECORD_FETCH, write.surveyId, write.of, write.status, write.problem, iso);
        break;
    }
  }
  if (writes.length > 0) yield* execute(BUMP_VERSION);
}

/** Forgets the routing data of surveys that are no longer live. */
export function* forgetRoutingData(surveyIds: readonly number[]): Program<void> {
  for (const surveyId of surveyIds) {
    for (const forget of [DELETE_GROUPS, DELETE_RECONTACT, DELETE_FETCHES, DELETE_STATS])
      yield* execute(forget, surveyId);
  }
  if (surveyIds.length > 0) yield* execute(BUMP_VERSION);
}

const ROUTING_DATA_VERSION = statement<[], number>(
  "SELECT value FROM loop_counters WHERE name = 'routing-data'",
  (row) => integer(row.value),
);

/** The version of the routing data: a replica re-reads it only when this moved. */
export function* routingDataVersion(): Program<number> {
  return (yield* first(ROUTING_DATA_VERSION)) ?? 0;
}

const SURVEY_GROUPS = statement<[], readonly [surveyId: number, groupId: number]>(
  "SELECT survey_id, group_id FROM loop_survey_groups ORDER BY survey_id, group_id",
  (row) => [integer(row.survey_id), integer(row.group_id)],
);
const ACTIVE_RECONTACTS = statement<[], readonly [surveyId: number, uid: string]>(
  "SELECT survey_id, uid FROM loop_recontact_respondents WHERE active = 1",
  (row) => [integer(row.survey_id), text(row.uid)],
);
const FETCHES = statement<[], RoutingData["fetches"][number]>(
  "SELECT survey_id, kind, status, problem, fetched_at FROM loop_routing_fetches",
  (row) => ({
    surveyId: integer(row.survey_id),
    kind: oneOf(routingDataKinds)(row.kind),
    status: oneOf(["ok", "missing", "unreadable"] as const)(row.status),
    problem: nullable(text)(row.problem),
    fetchedAt: isoTime(row.fetched_at),
  }),
);
const SURVEY_STATS = statement<[], readonly [surveyId: number, stats: StoredSurveyStats]>(
  "SELECT * FROM loop_survey_stats",
  (row) => [
    integer(row.survey_id),
    {
      conversion: nullable(decimal)(row.conversion),
      effectiveEpc: nullable(decimal)(row.effective_epc),
      lengthOfInterview: nullable(decimal)(row.length_of_interview),
      scope: text(row.scope),
    },
  ],
);

/** All the routing data. */
export function* readRoutingData(): Program<RoutingData> {
  const version = yield* routingDataVersion();
  const groups = new Map<number, number[]>();
  for (const [surveyId, groupId] of yield* rows(SURVEY_GROUPS)) {
    const list = groups.get(surveyId) ?? [];
    list.push(groupId);
    groups.set(surveyId, list);
  }
  const recontact = new Map<number, Set<string>>();
  for (const [surveyId, uid] of yield* rows(ACTIVE_RECONTACTS)) {
    const set = recontact.get(surveyId) ?? new Set<string>();
    set.add(uid);
    recontact.set(surveyId, set);
  }
  const fetches = yield* rows(FETCHES);
  // A re-contact study whose list was read but holds no active uid is still a list (empty): nobody may enter.
  for (const fetch of fetches)
    if (fetch.kind === "recontact" && fetch.status === "ok" && !recontact.has(fetch.surveyId))
      recontact.set(fetch.surveyId, new Set());
  const stats = new Map(yield* rows(SURVEY_STATS));
  return { version, groups, recontact, stats, fetches };
}

/** Per survey with outcomes: what yield ranking learns from (decided entries, standing completes, the cut-off's time). */
export interface SurveyYieldCounts {
  readonly surveyId: number;
  readonly decided: number;
  readonly completes: number;
  readonly cutoffReachedAt: number | null;
}

const YIELD_COUNTS = statement<[], SurveyYieldCounts>(
  "SELECT survey_id, completes, terminates, overquotas, security, cutoff_reached_at FROM loop_survey_counts",
  (row) => {
    const completes = integer(row.completes);
    return {
      surveyId: integer(row.survey_id),
      decided: completes + integer(row.terminates) + integer(row.overquotas) + integer(row.security),
      completes,
      cutoffReachedAt: nullable(integer)(row.cutoff_reached_at),
    };
  },
);

/** {@link SurveyYieldCounts} of every survey with an entry: O(surveys). */
export function* yieldCounts(): Program<SurveyYieldCounts[]> {
  return yield* rows(YIELD_COUNTS);
}
