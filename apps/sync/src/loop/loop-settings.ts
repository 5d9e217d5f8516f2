import { DEFAULT_MAX_CPI, CPI_CEILING } from "./money.ts";
import { idList, numberValue, oneOf, SettingProblem, wordList, type PlainSetting } from "../common/setting-parsers.ts";
// The yield defaults are @sds/routing's (one owner): the store, the ranker and replay read the same.
import { DEFAULT_PRIOR_STRENGTH, DEFAULT_YIELD_CUTOFF } from "@sds/routing";

/*
 * The respondent loop's rows of the configuration table: the receiver, respondent-aware routing
 * and yield ranking. The table (config/config.ts) includes them; `--help`, the table of docs/reference.md
 * test and the logged configuration are generated from it like every other row.
 */

/** The loop's settings, part of `SyncConfig`. */
export interface LoopConfig {
  /** `SYNC_OUTCOMES_PORT`: the S2S outcome receiver listens on its own port, apart from the private API; served on the main listener when unset. */
  readonly outcomesPort?: number | undefined;
  /** `SYNC_OUTCOMES_PUBLIC_URL`: the origin (and path prefix) the marketplace calls the receiver at, as in the account's S2S URLs; signatures are verified over it. @default the receiver listener's own origin */
  readonly outcomesPublicUrl?: string | undefined;
  /** `SYNC_OUTCOMES_TOKEN_PARAM`: the query parameter carrying the transaction token on S2S calls. @default "vq_token" */
  readonly outcomesTokenParameter?: string | undefined;
  /** `SYNC_ENTRY_PLACEHOLDERS`: `[%NAME%]` placeholders of SurveyUrls and what fills them. @default { RID: "token" } */
  readonly entryPlaceholders?: Readonly<Record<string, "token" | "uid">> | undefined;
  /** `SYNC_GROUPS_REFRESH_SECONDS`: how long fetched survey groups and re-contact lists are trusted. @default 600 */
  readonly groupsRefreshSeconds?: number | undefined;
  /** `SYNC_STATS_REFRESH_SECONDS`: how long fetched survey stats are trusted; 0 fetches none. @default 600 */
  readonly statsRefreshSeconds?: number | undefined;
  /** `SYNC_RECONTACT_STUDY_TYPES`: StudyTypeIds of re-contact studies besides those the StudyTypes collection names. @default [] */
  readonly recontactStudyTypes?: readonly number[] | undefined;
  /** `SYNC_MISSING_GROUPS`: a survey whose group list cannot be read is routed (as if it had none) or excluded. @default "route" */
  readonly missingGroups?: "route" | "exclude" | undefined;
  /** `SYNC_REENTRY_AFTER`: outcomes after which a respondent may enter the same survey again. @default [] */
  readonly reentryAfter?: readonly ("terminate" | "overquota")[] | undefined;
  /** `SYNC_GROUP_LOOKBACK_SECONDS`: how far back an entry into a group's survey keeps the others out; unset: ever. */
  readonly groupLookbackSeconds?: number | undefined;
  /** `SYNC_GROUP_BLOCKING_OUTCOMES`: which earlier entries keep a group's other surveys out. @default "all" */
  readonly groupBlockingOutcomes?:
    "all" | readonly ("complete" | "terminate" | "overquota" | "security" | "pending")[] | undefined;
  /** `SYNC_MAX_ENTRIES_PER_DAY`: entries a respondent may make in 24 hours; unset: no cap. */
  readonly maxEntriesPerDay?: number | undefined;
  /** `SYNC_MAX_COMPLETES_PER_DAY`: completes a respondent may have in 24 hours; unset: no cap. */
  readonly maxCompletesPerDay?: number | undefined;
  /** `SYNC_YIELD_PRIOR_STRENGTH`: pseudo-entries the marketplace's conversion (or Ir) weighs as, before this supplier's own outcomes. @default 10 */
  readonly yieldPriorStrength?: number | undefined;
  /** `SYNC_YIELD_CUTOFF_ENTRIES`: decided entries with no complete after which a survey is held out of yield ranking. @default 20 */
  readonly yieldCutoffEntries?: number | undefined;
  /** `SYNC_YIELD_COOLDOWN_SECONDS`: how long such a survey is held out. @default 21600 (6 h) */
  readonly yieldCooldownSeconds?: number | undefined;
  /** `SYNC_MATCHER_POLL_MS`: how often every replica's matcher checks the store for committed cycles. @default 1000 */
  readonly matcherPollMs?: number | undefined;
  /** `SYNC_ROUTING_FACTS_RELOAD_MS`: how often every replica reloads the routing data and yield counts from the loop store. @default 2000 */
  readonly routingFactsReloadMs?: number | undefined;
  /** `SYNC_WINDOW_ADVANCE_SECONDS`: how often the hours that left the 24-hour and 7-day windows are taken out of their totals. @default 600 */
  readonly windowAdvanceSeconds?: number | undefined;
  /** `SYNC_MAX_CPI`: the highest Cpi taken for a price; a survey asking more is quarantined at ingest. @default 100 */
  readonly maxCpi?: number | undefined;
  /** `SYNC_HOURLY_COUNTS_PRUNE_SECONDS`: how often hourly conversion counts older than 8 days are deleted. @default 600 */
  readonly hourlyCountsPruneSeconds?: number | undefined;
  /** `SYNC_IDEMPOTENCY_RETENTION_SECONDS`: how long a reconciliation's Idempotency-Key is kept (a repeat within it applies nothing). @default 604800 (7 days) */
  readonly idempotencyRetentionSeconds?: number | undefined;
}

function parseOutcomesPublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingProblem(`is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new SettingProblem(`must be http or https, got ${url.protocol}`);
  if (url.search !== "" || url.hash !== "" || url.username || url.password) {
    throw new SettingProblem("must be an origin with an optional path prefix, without credentials, query or fragment");
  }
  return value.replace(/\/+$/, "");
}

function parsePlaceholders(raw: string): Record<string, "token" | "uid"> {
  const map: Record<string, "token" | "uid"> = {};
  for (const pair of raw.split(",")) {
    const match = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(token|uid)\s*$/i.exec(pair);
    if (!match?.[1] || !match[2])
      throw new SettingProblem(`must be a comma list of NAME=token or NAME=uid, got ${JSON.stringify(pair)}`);
    map[match[1].toUpperCase()] = match[2].toLowerCase() as "token" | "uid";
  }
  return map;
}

const outcomesAndPending = ["complete", "terminate", "overquota", "security", "pending"] as const;

/** The loop's rows of the configuration table, in the order `--help` lists them. */
export const loopSettings = {
  outcomesPort: {
    variable: "SYNC_OUTCOMES_PORT",
    description:
      "Port of the S2S outcome receiver's own listener (0 picks a free one). Unset: the receiver's routes are served on the main listener. Set: only there, and the main listener no longer serves them.",
    parse: numberValue({ min: 0, max: 65_535, integer: true }),
    fallback: { kind: "unset" },
  },
  outcomesPublicUrl: {
    variable: "SYNC_OUTCOMES_PUBLIC_URL",
    description:
      "The origin, and any path prefix, the marketplace calls the receiver at, exactly as in the account's S2S URLs (https://panel.example/sds): signatures are verified over this followed by the request target as received. Unset: the receiver listener's own origin (http://HOST:PORT), never the request's Host header; set it whenever the marketplace reaches the receiver by another name (a proxy, a load balancer).",
    parse: parseOutcomesPublicUrl,
    fallback: { kind: "unset" },
  },
  outcomesTokenParameter: {
    variable: "SYNC_OUTCOMES_TOKEN_PARAM",
    description: "The query parameter that carries the transaction token on S2S calls.",
    parse: (raw) => {
      if (!/^[A-Za-z0-9_.~-]+$/.test(raw))
        throw new SettingProblem(`must be a plain query parameter name, got ${JSON.stringify(raw)}`);
      return raw;
    },
    fallback: { kind: "default", raw: "vq_token" },
  },
  entryPlaceholders: {
    variable: "SYNC_ENTRY_PLACEHOLDERS",
    description:
      "Comma list of NAME=token or NAME=uid: what fills each [%NAME%] placeholder of a SurveyUrl in an entry link ([#vq_tid#] and [#vq_tuid#] are always the token and the uid). A link that would keep an unfilled placeholder is refused (422) and its survey stays out of matching.",
    parse: parsePlaceholders,
    fallback: { kind: "default", raw: "RID=token" },
  },
  groupsRefreshSeconds: {
    variable: "SYNC_GROUPS_REFRESH_SECONDS",
    description:
      "Seconds (60 to 86400) a fetched survey-group list or re-contact list is trusted before it is fetched again (spread over the cycles; new surveys at once).",
    parse: numberValue({ min: 60, max: 86_400, integer: true }),
    fallback: { kind: "default", raw: "600" },
  },
  statsRefreshSeconds: {
    variable: "SYNC_STATS_REFRESH_SECONDS",
    description:
      "Seconds (60 to 86400) fetched survey stats (the yield ranking's prior) are trusted; 0 fetches no stats.",
    parse: (raw) => (raw === "0" ? 0 : numberValue({ min: 60, max: 86_400, integer: true })(raw)),
    fallback: { kind: "default", raw: "600" },
  },
  recontactStudyTypes: {
    variable: "SYNC_RECONTACT_STUDY_TYPES",
    description:
      "Comma list of StudyTypeIds of re-contact studies, besides those whose name in the StudyTypes collection matches re-?contact.",
    parse: idList,
    fallback: { kind: "unset" },
  },
  missingGroups: {
    variable: "SYNC_MISSING_GROUPS",
    description:
      "route or exclude: what a survey with Has_Survey_Groups does while its group list cannot be read (a 404, an unreadable body). route: as if it had no groups; exclude: out of matching.",
    parse: (raw) => oneOf(["route", "exclude"] as const, raw.toLowerCase(), raw),
    fallback: { kind: "default", raw: "route" },
  },
  reentryAfter: {
    variable: "SYNC_REENTRY_AFTER",
    description:
      "Comma list of terminate, overquota: outcomes after which a respondent may enter the same survey again. Unset: never.",
    parse: (raw) => wordList(["terminate", "overquota"] as const, raw),
    fallback: { kind: "unset" },
  },
  groupLookbackSeconds: {
    variable: "SYNC_GROUP_LOOKBACK_SECONDS",
    description: "Seconds an entry into one survey of a group keeps the group's other surveys out. Unset: for ever.",
    parse: numberValue({ min: 1, max: 10 * 365 * 24 * 3600, integer: true }),
    fallback: { kind: "unset" },
  },
  groupBlockingOutcomes: {
    variable: "SYNC_GROUP_BLOCKING_OUTCOMES",
    description:
      "all, or a comma list of complete, terminate, overquota, security, pending: which earlier entries keep a group's other surveys out.",
    parse: (raw) => (raw.toLowerCase() === "all" ? ("all" as const) : wordList(outcomesAndPending, raw)),
    fallback: { kind: "default", raw: "all" },
  },
  maxEntriesPerDay: {
    variable: "SYNC_MAX_ENTRIES_PER_DAY",
    description:
      "Entries (1 to 10000) a respondent may make in 24 hours; beyond it no survey matches. Unset: no cap (Toluna's is 25).",
    parse: numberValue({ min: 1, max: 10_000, integer: true }),
    fallback: { kind: "unset" },
  },
  maxCompletesPerDay: {
    variable: "SYNC_MAX_COMPLETES_PER_DAY",
    description:
      "Completes (1 to 10000) a respondent may have in 24 hours; beyond it no survey matches. Unset: no cap (Toluna's is 5).",
    parse: numberValue({ min: 1, max: 10_000, integer: true }),
    fallback: { kind: "unset" },
  },
  yieldPriorStrength: {
    variable: "SYNC_YIELD_PRIOR_STRENGTH",
    description:
      "How many entries (0.1 to 10000) the prior (the marketplace's conversion, else Ir) weighs as in yield ranking before this supplier's own outcomes.",
    parse: numberValue({ min: 0.1, max: 10_000, integer: false }),
    fallback: { kind: "default", raw: String(DEFAULT_PRIOR_STRENGTH) },
  },
  yieldCutoffEntries: {
    variable: "SYNC_YIELD_CUTOFF_ENTRIES",
    description:
      "Decided entries (1 to 10000) with no complete after which a survey is held out of yield ranking for SYNC_YIELD_COOLDOWN_SECONDS (Lucid advises 20).",
    parse: numberValue({ min: 1, max: 10_000, integer: true }),
    fallback: { kind: "default", raw: String(DEFAULT_YIELD_CUTOFF.entries) },
  },
  yieldCooldownSeconds: {
    variable: "SYNC_YIELD_COOLDOWN_SECONDS",
    description: "Seconds (60 to 2592000) a survey that reached the yield cut-off is held out of yield ranking.",
    parse: numberValue({ min: 60, max: 2_592_000, integer: true }),
    fallback: { kind: "default", raw: String(DEFAULT_YIELD_CUTOFF.cooldownMs / 1000) },
  },
  matcherPollMs: {
    variable: "SYNC_MATCHER_POLL_MS",
    description:
      "Milliseconds (100 to 60000) between two checks of every replica's matcher for cycles committed to the store (followers run no cycle of their own).",
    parse: numberValue({ min: 100, max: 60_000, integer: true }),
    fallback: { kind: "default", raw: "1000" },
  },
  routingFactsReloadMs: {
    variable: "SYNC_ROUTING_FACTS_RELOAD_MS",
    description:
      "Milliseconds (100 to 600000) between two reloads of the routing data and the yield counts from the loop store, so that every replica ranks and excludes alike.",
    parse: numberValue({ min: 100, max: 600_000, integer: true }),
    fallback: { kind: "default", raw: "2000" },
  },
  windowAdvanceSeconds: {
    variable: "SYNC_WINDOW_ADVANCE_SECONDS",
    description:
      "Seconds (1 to 3600) between two passes that take the hours that left the last 24 hours and 7 days out of those windows' totals (a status read does it too).",
    parse: numberValue({ min: 1, max: 3600, integer: true }),
    fallback: { kind: "default", raw: "600" },
  },
  maxCpi: {
    variable: "SYNC_MAX_CPI",
    description: `The highest Cpi (0.01 to ${CPI_CEILING}, in the account's currency, decimals allowed) taken for a price. A listed survey whose Cpi is above it, negative, or not a decimal with at most 6 decimals is quarantined by the cycle with the reason (GET /v1/sync/status lists it) and never stored, routed or summed; a stored survey above a lowered limit is held out of routing.`,
    parse: numberValue({ min: 0.01, max: CPI_CEILING, integer: false }),
    fallback: { kind: "default", raw: String(DEFAULT_MAX_CPI) },
  },
  hourlyCountsPruneSeconds: {
    variable: "SYNC_HOURLY_COUNTS_PRUNE_SECONDS",
    description: "Seconds (1 to 86400) between two passes that delete hourly conversion counts older than 8 days.",
    parse: numberValue({ min: 1, max: 86_400, integer: true }),
    fallback: { kind: "default", raw: "600" },
  },
  idempotencyRetentionSeconds: {
    variable: "SYNC_IDEMPOTENCY_RETENTION_SECONDS",
    description:
      "Seconds (3600 to 7776000) a reconciliation's Idempotency-Key is kept: a repeat of the batch within it answers the first answer and records nothing; then the pruner deletes the key.",
    parse: numberValue({ min: 3600, max: 7_776_000, integer: true }),
    fallback: { kind: "default", raw: "604800" },
  },
} as const satisfies { readonly [Key in keyof LoopConfig]-?: PlainSetting<NonNullable<LoopConfig[Key]>> };
