import { z } from "zod";
import type { OutcomeKind } from "./outcome-kinds.ts";
import { GateCode } from "./sessions.ts";

/*
 * `GET /v1/sync/status`: what the status page and an operator's tools read. Every field the
 * service sends is named here (a test compares the parsed answer of a running sds-sync with the
 * raw one), so a consumer reads typed figures instead of `Record<string, unknown>`.
 */

const count = z.int().min(0);

/**
 * How much `GET /v1/sync/status` lists one by one: the loop's surveys (those earning most over
 * the last 7 days, then over their lifetime; the totals count every survey), the most recent
 * cycles and the most recently seen quarantined items.
 */
export const STATUS_LIMITS = { surveys: 500, runs: 20, quarantine: 20 } as const;

/** A cycle's counts, by name (`listed`, `opened`, `closed`, `upstreamRequests`, …). */
export const RunCounts = z
  .record(z.string(), z.number())
  .describe("A cycle's counts by name (listed, opened, closed, …).");

/** One recent sync cycle. */
export const RunSummary = z.object({
  id: z.int(),
  replicaId: z.string(),
  trigger: z.enum(["schedule", "manual", "startup"]),
  status: z.enum(["succeeded", "failed"]),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number(),
  counts: RunCounts,
  error: z.string().nullable(),
  firstSequence: z.int().nullable().describe("The sequence of this run's first change; null when it had none."),
  lastSequence: z.int().nullable(),
});
/** One recent sync cycle. */
export type RunSummary = z.output<typeof RunSummary>;

/** One window's conversion of the respondent loop. */
export const ConversionWindowReport = z.object({
  entries: count.describe("Entry links issued."),
  completes: count,
  terminates: count,
  overquotas: count,
  securityTerminates: count,
  reversals: count.describe("Completes taken back (a complete changed into another outcome)."),
  earnings: z.number().describe("Sum of the CPI (as issued) of the completes that stand: net of reversals."),
  pending: count.describe("Entries with no outcome yet."),
  conversion: z.number().describe("completes / entries; 0 with no entries."),
  earningsPerEntry: z.number().describe("earnings / entries; 0 with no entries."),
});
/** One window's conversion of the respondent loop. */
export type ConversionWindowReport = z.output<typeof ConversionWindowReport>;

/** The windows the loop reports conversion over. */
export const ConversionWindows = z.object({
  lifetime: ConversionWindowReport,
  last24h: ConversionWindowReport.describe("Entries by the hour they were issued, outcomes by the hour they arrived."),
  last7d: ConversionWindowReport,
});
/** The windows the loop reports conversion over. */
export type ConversionWindows = z.output<typeof ConversionWindows>;

/** How the routing data (survey groups, re-contact lists, stats) stands on this replica. */
export const RoutingDataReport = z.object({
  groups: z.object({
    surveys: count.describe("Surveys whose group list was read."),
    unavailable: count.describe("Surveys whose group list could not be read."),
    pending: count.describe("Grouped surveys held out until their groups are first read."),
  }),
  recontact: z.object({ studies: count, unavailable: count }),
  stats: z.object({ surveys: count, unavailable: count }),
  studyTypesPending: count.describe(
    "Surveys held out until the StudyTypes collection says whether their study type is a re-contact one.",
  ),
  questions: z
    .object({
      askable: count.describe("Catalogue questions a session can ask (their detail was read)."),
      unavailable: count.describe("Questions whose detail answered 404 or could not be read: not askable."),
      missing: count,
      unreadable: count,
    })
    .optional()
    .describe("The sessions' question catalogue (QualificationDetailById per question and language)."),
});
/** How the routing data stands on this replica. */
export type RoutingDataReport = z.output<typeof RoutingDataReport>;

/** The respondent loop's section of the status. */
export const LoopStatus = z.object({
  matcher: z.object({
    surveys: count.describe("Live surveys in the matcher."),
    sequence: z.int().describe("The change-feed position the matcher reflects."),
  }),
  account: z.object({
    fetchedAt: z
      .string()
      .nullable()
      .describe("When the account's settings were last read; null before the first read."),
    entryLinksSigned: z.boolean().nullable().describe("Whether entry links are signed (IncomingEncryption)."),
    outcomesVerified: z.boolean().nullable().describe("Whether outcome calls are verified (OutgoingEncryption)."),
    problem: z.string().nullable().describe("Why links cannot be signed or outcomes verified, if so."),
  }),
  warnings: z.array(z.string()),
  outcomes: z
    .object({ complete: count, terminate: count, overquota: count, security: count } satisfies Record<
      OutcomeKind,
      unknown
    >)
    .describe("Transitions recorded in all, by the outcome they set (all replicas)."),
  orphans: z.object({ tokens: count.describe("Tokens whose outcomes arrived with no entry to attach to.") }),
  refused: z.object({
    total: count,
    byReason: z
      .record(z.string(), count)
      .describe("S2S outcome calls the receiver refused since start (this replica), by reason (bad_signature, …)."),
  }),
  totals: ConversionWindows.describe("Sums over every survey with at least one entry."),
  surveyCount: count.describe("Surveys with at least one entry."),
  surveys: z
    .array(ConversionWindows.extend({ surveyId: z.int() }))
    .describe(
      `At most ${STATUS_LIMITS.surveys} surveys, those earning most over the last 7 days, then over their lifetime; by SurveyId.`,
    ),
  inventoryData: RoutingDataReport,
  gate: z
    .object({
      refusals: z
        .record(GateCode, count)
        .describe("Respondents the quality gate refused, by gate code (all replicas, since the store was created)."),
    })
    .optional()
    .describe("The quality gate (docs/quality-gate.md)."),
});
/** The respondent loop's section of the status. */
export type LoopStatus = z.output<typeof LoopStatus>;

/** The mass-closure guard's held closures. */
export const HeldClosures = z.object({
  count: count.describe("Surveys held right now."),
  sample: z.array(z.int()).describe("Up to 20 of their ids."),
  absentCycles: count.describe("Most consecutive cycles any of them has been absent."),
  confirmCycles: count,
  maxShare: z.number(),
  confirmed: count.describe("Held surveys an operator confirmed: closed at the next cycle if still absent."),
});
/** The mass-closure guard's held closures. */
export type HeldClosures = z.output<typeof HeldClosures>;

/** `GET /v1/sync/status`: replica, store, recent cycles, collections, quarantine and the respondent loop. */
export const SyncStatus = z.object({
  replica: z.object({
    id: z.string(),
    leader: z.boolean(),
    running: z.boolean(),
    consecutiveFailures: count,
    nextRunAt: z.string().nullable(),
    leaderId: z.string().optional().describe("On a follower: the replica that leads, where it can be told."),
    leaderAddress: z
      .string()
      .optional()
      .describe("On a follower: the leader's API, where known (http://ADDRESS:PORT)."),
  }),
  currency: z.string().describe("SYNC_CURRENCY: the ISO 4217 code of the surveys' CPI, which earnings are in."),
  closures: HeldClosures.nullable().describe("The mass-closure guard's state on the leader; null elsewhere."),
  store: z.object({
    kind: z.enum(["sqlite", "postgres"]),
    live: count,
    closed: count,
    needsRefetch: count,
    quarantined: count,
    latestSequence: z.int(),
  }),
  languages: z.array(z.object({ languageId: z.int(), live: count, closed: count })),
  intervalSeconds: z.number(),
  runs: z.array(RunSummary).describe(`The most recent cycles, newest first (at most ${STATUS_LIMITS.runs}).`),
  collections: z.array(z.object({ name: z.string(), fetchedAt: z.string() })),
  quarantine: z
    .array(
      z.object({
        key: z.string(),
        surveyId: z.int().nullable(),
        source: z.string(),
        timesSeen: count,
        firstSeenAt: z.string(),
        lastSeenAt: z.string(),
        issues: z.unknown(),
      }),
    )
    .describe(`Items in quarantine now, most recently seen first (at most ${STATUS_LIMITS.quarantine}).`),
  loop: LoopStatus,
});
/** `GET /v1/sync/status`. */
export type SyncStatus = z.output<typeof SyncStatus>;

/** A cycle's result (`POST /v1/sync/run`: 200, or 502 when it failed). */
export const CycleRun = z.object({
  run: z.object({
    id: z.int().nullable(),
    status: z.enum(["succeeded", "failed"]),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime(),
    durationMs: z.number(),
    counts: RunCounts,
    error: z.string().nullable(),
    firstSequence: z.int().nullable(),
    lastSequence: z.int().nullable(),
  }),
});
/** A cycle's result. */
export type CycleRun = z.output<typeof CycleRun>;

/** `POST /v1/sync/run?wait=false`. */
export const RunAccepted = z.object({ accepted: z.literal(true) });
/** `POST /v1/sync/run?wait=false`. */
export type RunAccepted = z.output<typeof RunAccepted>;

/** `POST /v1/sync/closures/confirm`. */
export const ClosuresConfirmed = z.object({ confirmed: z.int(), appliedAt: z.string() });
/** `POST /v1/sync/closures/confirm`. */
export type ClosuresConfirmed = z.output<typeof ClosuresConfirmed>;
