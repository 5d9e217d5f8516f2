import { z } from "zod";
import { outcomeKinds } from "../loop/store/loop-store.ts";
import { changeTypes } from "../store/store.ts";

/*
 * The bodies sds-sync answers with, as zod schemas: `/openapi.json` is generated from them (see
 * openapi-document.ts) and the OpenAPI test checks every route's real answers against that
 * document. Objects are loose where the service may add fields without breaking a reader.
 * Routes whose bodies these describe exactly check them at compile time too (`satisfies Health`);
 * the rest (store records typed `unknown` inside) rely on that test.
 */

/** The body of every JSON error (respond.ts `errorReply`). */
export const ErrorBody = z.strictObject({ error: z.strictObject({ code: z.string(), message: z.string() }) });

/** `GET /healthz`. */
export const Health = z.object({ status: z.literal("ok") });
export type Health = z.output<typeof Health>;

/** `GET /readyz`, 200 or 503. */
export const Readiness = z.looseObject({
  ready: z.boolean(),
  reason: z.string().optional().describe("Why not ready (503)."),
  lastSuccessAt: z.iso.datetime().optional(),
  ageSeconds: z.number().optional(),
  staleAfterSeconds: z.number().optional(),
  closuresHeld: z.int().optional(),
});
export type Readiness = z.output<typeof Readiness>;

/** A stored survey with its sync metadata. */
export const StoredSurvey = z.looseObject({
  id: z.int(),
  status: z.enum(["live", "closed"]),
  closedAt: z.string().nullable(),
  firstSeenAt: z.string(),
  changedAt: z.string(),
  needsRefetch: z.boolean(),
  survey: z.record(z.string(), z.unknown()).describe("The upstream Survey record as last received."),
});

/** `GET /v1/surveys/{id}`. */
export const StoredSurveyDetail = StoredSurvey.extend({
  qualifications: z.array(z.unknown()).describe("The upstream SurveyQualification records."),
  quotas: z.array(z.unknown()).describe("The upstream SurveyQuota records."),
});

/** `GET /v1/surveys`. */
export const SurveyPage = z.object({
  surveys: z.array(StoredSurvey),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last."),
  sequence: z.int().describe("The change-feed sequence this page reflects at least: follow /v1/changes?after=<it>."),
});

/** One entry of the change feed. */
export const Change = z.object({ sequence: z.int(), type: z.enum(changeTypes), surveyId: z.int(), runId: z.int(), occurredAt: z.string() });

/** `GET /v1/changes`. */
export const ChangePage = z.object({ changes: z.array(Change), next: z.int(), hasMore: z.boolean() });
export type ChangePage = z.output<typeof ChangePage>;

/** `GET /v1/collections`. */
export const CollectionList = z.object({ collections: z.array(z.looseObject({ name: z.string(), fetchedAt: z.string(), body: z.unknown() })) });

/** `GET /v1/sync/status`: replica, store, recent cycles, collections, quarantine and the respondent loop. */
export const SyncStatus = z.looseObject({
  replica: z.looseObject({ id: z.string(), leader: z.boolean(), running: z.boolean(), consecutiveFailures: z.int() }),
  closures: z.looseObject({ count: z.int(), sample: z.array(z.int()) }).nullable(),
  store: z.looseObject({ kind: z.string(), live: z.int(), closed: z.int(), latestSequence: z.int() }),
  languages: z.array(z.looseObject({ languageId: z.int(), live: z.int(), closed: z.int() })),
  intervalSeconds: z.number(),
  runs: z.array(z.looseObject({ id: z.int(), status: z.enum(["succeeded", "failed"]), startedAt: z.string(), finishedAt: z.string() })),
  collections: z.array(z.object({ name: z.string(), fetchedAt: z.string() })),
  quarantine: z.array(z.looseObject({ key: z.string(), surveyId: z.int().nullable(), source: z.string(), timesSeen: z.int() })),
  loop: z.record(z.string(), z.unknown()),
});

/** A cycle's result (`POST /v1/sync/run`). */
export const CycleRun = z.object({
  run: z.looseObject({
    id: z.int().nullable(),
    status: z.enum(["succeeded", "failed"]),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime(),
    durationMs: z.number(),
    counts: z.record(z.string(), z.number()),
    error: z.string().nullable(),
  }),
});

/** `POST /v1/sync/run?wait=false`. */
export const RunAccepted = z.object({ accepted: z.literal(true) });
export type RunAccepted = z.output<typeof RunAccepted>;

/** `POST /v1/sync/closures/confirm`. */
export const ClosuresConfirmed = z.object({ confirmed: z.int(), appliedAt: z.string() });
export type ClosuresConfirmed = z.output<typeof ClosuresConfirmed>;

/** `POST /v1/match`. */
export const MatchResult = z.object({
  surveys: z.array(z.record(z.string(), z.unknown())).describe("Upstream Survey records, best first."),
  eligible: z.int(),
  sequence: z.int(),
  explanation: z.unknown().optional(),
});

/** `POST /v1/entry-links`. */
export const EntryLink = z.object({ link: z.string().describe("The entry link; the survey URL's own placeholders (such as [%RID%]) may remain."), surveyId: z.int(), token: z.string(), uid: z.string(), issuedAt: z.string() });
export type EntryLink = z.output<typeof EntryLink>;

/** One recorded outcome. */
export const Outcome = z.object({
  sequence: z.int(),
  token: z.string(),
  outcome: z.enum(outcomeKinds),
  surveyId: z.int().nullable(),
  previousOutcome: z.enum(outcomeKinds).nullable(),
  receivedAt: z.string(),
});

/** `GET /v1/outcomes`. */
export const OutcomePage = z.object({ outcomes: z.array(Outcome), next: z.int(), hasMore: z.boolean() });
export type OutcomePage = z.output<typeof OutcomePage>;

/** `GET`/`POST /v1/outcomes/{outcome}`. */
export const OutcomeReceipt = z.object({ recorded: z.boolean(), outcome: Outcome });
export type OutcomeReceipt = z.output<typeof OutcomeReceipt>;

/** `GET /openapi.json`: this document (validated as OpenAPI 3.1 by the tests, outlined here). */
export const OpenApiDocument = z.looseObject({
  openapi: z.literal("3.1.0"),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});
