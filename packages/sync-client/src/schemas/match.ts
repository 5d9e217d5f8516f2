import { MAX_MATCH_LIMIT } from "@sds/routing";
import { z } from "zod";
import { LoopText } from "./loop-text.ts";
import { DeviceName } from "./survey-query.ts";

/** The most option codes one answer may carry in `POST /v1/match`. */
export const MAX_ANSWER_OPTIONS = 1000;

/** Body of `POST /v1/match`. */
export const MatchBody = z.strictObject({
  answers: z
    .record(
      z.string().regex(/^\d{1,12}$/, "must be a QualificationId"),
      z.array(z.string().max(200)).max(MAX_ANSWER_OPTIONS),
    )
    .describe("`QualificationId` (as a string) → the option codes the respondent gave."),
  languageId: z.int().optional(),
  device: DeviceName.optional(),
  limit: z.int().min(1).max(MAX_MATCH_LIMIT).optional(),
  explain: z.int().positive().optional().describe("A SurveyId: say why that survey is in or out for this respondent."),
  uid: LoopText.optional().describe(
    "The respondent's id in the supplier's system: their history (entries issued and imported) keeps out surveys the buyer would reject.",
  ),
  order: z
    .enum(["earnings", "yield"])
    .optional()
    .describe("`earnings` (`Cpi × Ir / 100`, the default) or `yield` (`Cpi ×` the conversion learned from outcomes)."),
  explore: z
    .boolean()
    .optional()
    .describe("Under `yield`: false ranks by the posterior mean instead of a draw (no exploration). Default true."),
});
/** Body of `POST /v1/match`. */
export type MatchBody = z.input<typeof MatchBody>;

/** `POST /v1/match`. */
export const MatchResult = z.object({
  surveys: z.array(z.record(z.string(), z.unknown())).describe("Upstream Survey records, best first."),
  eligible: z.int(),
  sequence: z.int(),
  explanation: z.unknown().optional(),
});
/** `POST /v1/match`. */
export type MatchResult = z.output<typeof MatchResult>;
