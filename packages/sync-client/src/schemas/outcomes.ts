import { z } from "zod";
import { LoopText, loopNote } from "./loop-text.ts";
import { outcomeKinds, outcomeSources } from "./outcome-kinds.ts";

/** One recorded outcome: a transition of an entry's current outcome, in the outcome feed. */
export const Outcome = z.object({
  sequence: z.int(),
  token: z.string(),
  outcome: z.enum(outcomeKinds),
  surveyId: z.int().nullable(),
  previousOutcome: z.enum(outcomeKinds).nullable(),
  receivedAt: z.string(),
  source: z
    .enum(outcomeSources)
    .describe(
      "s2s: the marketplace's call; reconcile: a correction (POST /v1/outcomes/reconcile); attach: an outcome that arrived before its entry, attached when the entry was issued; redirect: a signed return of the respondent while the account's S2S URLs are disabled; timeout: a drop (no outcome after SYNC_DROP_AFTER_LOI × the survey's Loi), recorded as a terminate.",
    ),
  reason: z.string().nullable().describe("Why (a reconciliation's reason)."),
  speeder: z
    .literal(true)
    .optional()
    .describe(
      "The entry is a speeder: its complete came less than SYNC_SPEEDER_FRACTION × the survey's Loi after it was issued (listed by GET /v1/outcomes).",
    ),
});
/** One recorded outcome. */
export type Outcome = z.output<typeof Outcome>;

/** `GET /v1/outcomes`. */
export const OutcomePage = z.object({ outcomes: z.array(Outcome), next: z.int(), hasMore: z.boolean() });
/** `GET /v1/outcomes`. */
export type OutcomePage = z.output<typeof OutcomePage>;

/** `GET`/`POST /v1/outcomes/{outcome}`: the S2S receiver's answer. */
export const OutcomeReceipt = z.object({ recorded: z.boolean(), outcome: Outcome });
/** `GET`/`POST /v1/outcomes/{outcome}`. */
export type OutcomeReceipt = z.output<typeof OutcomeReceipt>;

/** The most reconciliation lines one request may carry (a tool sends a longer file in batches). */
export const MAX_RECONCILE_BATCH = 1000;

/** The longest reason sds-sync keeps with a reconciliation line. */
export const MAX_REASON_LENGTH = 500;

/** Body of `POST /v1/outcomes/reconcile`. */
export const ReconcileBody = z.strictObject({
  outcomes: z
    .array(
      z.strictObject({
        token: LoopText,
        outcome: z.enum(outcomeKinds),
        reason: loopNote(MAX_REASON_LENGTH).optional(),
      }),
    )
    .min(1)
    .max(MAX_RECONCILE_BATCH),
  dryRun: z
    .boolean()
    .optional()
    .describe(
      "true: record nothing; each line answers what it would do, in order (a later line of a token sees the earlier line's effect).",
    ),
});
/** Body of `POST /v1/outcomes/reconcile`. */
export type ReconcileBody = z.input<typeof ReconcileBody>;

/** One line of a reconciliation's answer. */
export const ReconcileLine = z.object({
  token: z.string(),
  status: z
    .enum(["changed", "unchanged", "unknown-token"])
    .describe(
      "changed: a transition was recorded (on a dry run: would be); unchanged: the entry's outcome already was this one; unknown-token: no entry carries it (nothing recorded).",
    ),
  outcome: z.enum(outcomeKinds),
  previousOutcome: z.enum(outcomeKinds).nullable(),
  sequence: z
    .int()
    .nullable()
    .describe("The transition's place in the outcome feed; null when nothing was recorded (and on a dry run)."),
});
/** One line of a reconciliation's answer. */
export type ReconcileLine = z.output<typeof ReconcileLine>;

/** `POST /v1/outcomes/reconcile`. */
export const Reconciled = z.object({
  dryRun: z.boolean().describe("true when nothing was recorded and the lines say what would happen."),
  applied: z
    .boolean()
    .optional()
    .describe(
      "true: every line was recorded as its status says, together, in one transaction; false on a dry run. A request that fails records none of its lines.",
    ),
  replayed: z
    .boolean()
    .optional()
    .describe(
      "true: the stored answer of an earlier request with the same Idempotency-Key and body; nothing was recorded again.",
    ),
  changed: z.int(),
  unchanged: z.int(),
  unknown: z.int(),
  results: z.array(ReconcileLine),
});
/** `POST /v1/outcomes/reconcile`. */
export type Reconciled = z.output<typeof Reconciled>;
