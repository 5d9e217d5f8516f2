import { z } from "zod";
import { LoopText } from "./loop-text.ts";
import { outcomeKinds } from "./outcome-kinds.ts";

/** The most entries one history import may carry: a batch, not a file (a tool sends a file in batches). */
export const MAX_HISTORY_BATCH = 1000;

/** One entry a respondent made elsewhere. */
export const HistoryEntry = z.strictObject({
  uid: LoopText,
  surveyId: z.int().positive(),
  /** When the respondent entered, ISO 8601 with seconds and a zone. */
  enteredAt: z.iso
    .datetime({ offset: true })
    .describe("When the respondent entered, ISO 8601 with seconds and a zone."),
  outcome: z.enum(outcomeKinds).optional(),
});
/** One entry a respondent made elsewhere. */
export type HistoryEntry = z.input<typeof HistoryEntry>;

/** Body of `POST /v1/respondents/history`. */
export const HistoryBody = z.strictObject({ entries: z.array(HistoryEntry).min(1).max(MAX_HISTORY_BATCH) });
/** Body of `POST /v1/respondents/history`. */
export type HistoryBody = z.input<typeof HistoryBody>;

/** `POST /v1/respondents/history`. */
export const HistoryImported = z.object({
  imported: z.int(),
  skipped: z
    .int()
    .describe("Entries already known (same respondent, survey and time): importing a file twice adds nothing."),
});
/** `POST /v1/respondents/history`. */
export type HistoryImported = z.output<typeof HistoryImported>;

/**
 * Why `text` is not a time `POST /v1/respondents/history` takes (ISO 8601 with seconds and a
 * zone: `2026-01-05T10:00:00Z`, `2026-01-05T12:00:00+02:00`), or `undefined`: the schema's own
 * check, in a sentence, for a tool that checks a file line by line before sending it.
 */
export function enteredAtProblem(text: string): string | undefined {
  if (HistoryEntry.shape.enteredAt.safeParse(text).success) return undefined;
  return "must be an ISO 8601 time with seconds and a zone, such as 2026-01-05T10:00:00Z or 2026-01-05T12:00:00+02:00";
}
