import { z } from "zod";
import { outcomeKinds, outcomeSources } from "./store/loop-store.ts";

/*
 * The bodies of the respondent loop's routes, as zod schemas: `/openapi.json` is generated from
 * them and the OpenAPI test checks every route's real answers against that document.
 */

/** `POST /v1/match`. */
export const MatchResult = z.object({
  surveys: z.array(z.record(z.string(), z.unknown())).describe("Upstream Survey records, best first."),
  eligible: z.int(),
  sequence: z.int(),
  explanation: z.unknown().optional(),
});

/** `POST /v1/entry-links`. */
export const EntryLink = z.object({
  link: z.string().describe("The entry link, every placeholder filled."),
  surveyId: z.int(),
  token: z.string(),
  uid: z.string(),
  issuedAt: z.string(),
});
export type EntryLink = z.output<typeof EntryLink>;

/** One recorded outcome. */
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
});

/** `GET /v1/outcomes`. */
export const OutcomePage = z.object({ outcomes: z.array(Outcome), next: z.int(), hasMore: z.boolean() });
export type OutcomePage = z.output<typeof OutcomePage>;

/** `GET`/`POST /v1/outcomes/{outcome}`. */
export const OutcomeReceipt = z.object({ recorded: z.boolean(), outcome: Outcome });
export type OutcomeReceipt = z.output<typeof OutcomeReceipt>;
