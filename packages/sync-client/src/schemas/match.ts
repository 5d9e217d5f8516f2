import { MAX_MATCH_LIMIT } from "@sds/routing";
import { z } from "zod";
import { LoopText, storableText } from "./loop-text.ts";
import { DeviceName } from "./survey-query.ts";

/** The most option codes one answer may carry in `POST /v1/match`. */
export const MAX_ANSWER_OPTIONS = 1000;

/** Body of `POST /v1/match`. */
export const MatchBody = z
  .strictObject({
    answers: z
      .record(
        z.string().regex(/^\d{1,12}$/, "must be a QualificationId"),
        z.array(storableText(200)).max(MAX_ANSWER_OPTIONS),
      )
      .optional()
      .describe(
        "`QualificationId` (as a string) → the option codes the respondent gave. Without it, with a `uid`: the respondent's stored profile.",
      ),
    languageId: z.int().optional(),
    device: DeviceName.optional(),
    limit: z.int().min(1).max(MAX_MATCH_LIMIT).optional(),
    explain: z
      .int()
      .positive()
      .optional()
      .describe("A SurveyId: say why that survey is in or out for this respondent."),
    uid: LoopText.optional().describe(
      "The respondent's id in the supplier's system: their history (entries issued and imported) keeps out surveys the buyer would reject.",
    ),
    order: z
      .enum(["earnings", "yield"])
      .optional()
      .describe(
        "`earnings` (`Cpi × Ir / 100`, the default) or `yield` (`Cpi ×` the conversion learned from outcomes).",
      ),
    explore: z
      .boolean()
      .optional()
      .describe("Under `yield`: false ranks by the posterior mean instead of a draw (no exploration). Default true."),
  })
  .refine((body) => body.answers !== undefined || body.uid !== undefined, {
    message: "required without a uid (with a uid, the stored profile is used)",
    path: ["answers"],
  });
/** Body of `POST /v1/match`. */
export type MatchBody = z.input<typeof MatchBody>;

/** Why a survey is out for a respondent: a `kind` (`language`, `quota`, `already-entered`, …) and a sentence, with the kind's own fields. */
export const ExclusionReason = z.looseObject({ kind: z.string(), message: z.string() });
/** Why a survey is out for a respondent. */
export type ExclusionReason = z.output<typeof ExclusionReason>;

/** `explain`'s answer: whether the respondent qualifies for the survey, and every reason it is out. */
export const MatchExplanation = z.object({
  surveyId: z.int(),
  eligible: z.boolean().describe("Whether the respondent qualifies (reasons is then empty)."),
  reasons: z.array(ExclusionReason).describe("Every reason the survey is out, in the order of the rules."),
  yield: z
    .looseObject({
      estimate: z.number(),
      prior: z.looseObject({ mean: z.number(), strength: z.number(), source: z.enum(["marketplace", "ir"]) }),
      evidence: z.looseObject({ decided: z.int(), completes: z.int() }),
      draw: z.number().optional(),
      score: z.number().optional(),
    })
    .optional()
    .describe("Under order yield: the survey's conversion estimate and what it rests on."),
});
/** `explain`'s answer. */
export type MatchExplanation = z.output<typeof MatchExplanation>;

/** `POST /v1/match`. */
export const MatchResult = z.object({
  surveys: z.array(z.record(z.string(), z.unknown())).describe("Upstream Survey records, best first."),
  eligible: z.int().describe("How many live surveys the respondent qualifies for (beyond limit too)."),
  sequence: z.int().describe("The change-feed position the matcher reflects."),
  explanation: MatchExplanation.optional().describe("The answer to explain, when asked."),
});
/** `POST /v1/match`. */
export type MatchResult = z.output<typeof MatchResult>;
