import { z } from "zod";
import { LoopText } from "./loop-text.ts";
import { outcomeKinds } from "./outcome-kinds.ts";

/** The most entries one history import may carry: a batch, not a file (a tool sends a file in batches). */
export const MAX_HISTORY_BATCH = 1000;

/**
 * The tokens of imported entries start with this: entry links refuse it, so a link can neither
 * answer for an imported entry nor make an import skip one.
 */
export const IMPORTED_TOKEN_PREFIX = "history:";

/** The earliest entry time an import takes: anything older is a broken date (a year 0 read as 1900), not an entry. */
export const EARLIEST_ENTERED_AT = "2000-01-01T00:00:00Z";

/**
 * How far ahead of the checking clock (sds-sync's, on the server) an entry time may be, in
 * milliseconds: clocks drift, but an entry in the future would count toward the 24-hour caps for
 * as long as it stays ahead. @default 300000 (5 minutes)
 */
export const ENTERED_AT_CLOCK_SKEW_MS = 300_000;

const earliestEnteredAt = Date.parse(EARLIEST_ENTERED_AT);

/** Why an ISO time is outside the times an import takes at `now` (epoch ms), or undefined. */
function enteredAtBoundsProblem(text: string, now: number): string | undefined {
  const at = Date.parse(text);
  if (!(at >= earliestEnteredAt)) return `must be ${EARLIEST_ENTERED_AT} or later`;
  if (at > now + ENTERED_AT_CLOCK_SKEW_MS)
    return `must not be in the future (more than ${ENTERED_AT_CLOCK_SKEW_MS / 60_000} minutes after ${new Date(now).toISOString()})`;
  return undefined;
}

/** When the respondent entered: ISO 8601 with seconds and a zone, from 2000 on, not in the future. */
const EnteredAt = z.iso
  .datetime({ offset: true })
  .superRefine((text, context) => {
    const problem = enteredAtBoundsProblem(text, Date.now());
    if (problem !== undefined) context.addIssue({ code: "custom", message: `enteredAt ${problem}` });
  })
  .describe(
    `When the respondent entered, ISO 8601 with seconds and a zone; from ${EARLIEST_ENTERED_AT} on and at most ${ENTERED_AT_CLOCK_SKEW_MS / 60_000} minutes ahead of sds-sync's clock.`,
  );

/** One entry a respondent made elsewhere. */
export const HistoryEntry = z.strictObject({
  uid: LoopText,
  surveyId: z.int().positive(),
  /** When the respondent entered, ISO 8601 with seconds and a zone, from 2000 on and not in the future. */
  enteredAt: EnteredAt,
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
 * zone: `2026-01-05T10:00:00Z`, `2026-01-05T12:00:00+02:00`; from {@link EARLIEST_ENTERED_AT}
 * on, at most {@link ENTERED_AT_CLOCK_SKEW_MS} after `now`), or `undefined`: the schema's own
 * check, in a sentence, for a tool that checks a file line by line before sending it.
 */
export function enteredAtProblem(text: string, now: number = Date.now()): string | undefined {
  if (!z.iso.datetime({ offset: true }).safeParse(text).success)
    return "must be an ISO 8601 time with seconds and a zone, such as 2026-01-05T10:00:00Z or 2026-01-05T12:00:00+02:00";
  return enteredAtBoundsProblem(text, now);
}
