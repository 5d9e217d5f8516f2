import { z } from "zod";
import { MAX_BATCH_BODY_BYTES, readJsonBody } from "../http/request-body.ts";
import { json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import type { LoopContext } from "./loop-context.ts";
import { loopText } from "./loop-text.ts";
import { outcomeKinds } from "./store/loop-store.ts";

/** The most entries one history import may carry: a batch, not a file (the CLI sends a file in batches). */
export const MAX_HISTORY_BATCH = 1000;

/** Body of `POST /v1/respondents/history`. */
export const HistoryBody = z.strictObject({
  entries: z
    .array(
      z.strictObject({
        uid: loopText().pipe(z.string().min(1)),
        surveyId: z.number().int().positive(),
        /** When the respondent entered, ISO 8601 with a zone. */
        enteredAt: z.iso.datetime({ offset: true }),
        outcome: z.enum(outcomeKinds).optional(),
      }),
    )
    .min(1)
    .max(MAX_HISTORY_BATCH),
});

/** `POST /v1/respondents/history`. */
export const HistoryImported = z.object({
  imported: z.int(),
  skipped: z
    .int()
    .describe("Entries already known (same respondent, survey and time): importing a file twice adds nothing."),
});
export type HistoryImported = z.output<typeof HistoryImported>;

/**
 * `POST /v1/respondents/history`: entries a respondent made elsewhere (before sds-sync, or
 * through another system), so that routing keeps them out of surveys they already entered and
 * of those surveys' groups. Idempotent per (uid, survey, time). Imported entries are history,
 * not conversions: they never count in conversion or earnings.
 */
export async function importHistory(loop: LoopContext, request: RouteRequest): Promise<Reply> {
  const body = await readJsonBody(request.incoming, HistoryBody, MAX_BATCH_BODY_BYTES);
  if (!body.ok) return body.reply;
  const result = await loop.store.importHistory(
    body.value.entries.map((entry) => ({
      uid: entry.uid,
      surveyId: entry.surveyId,
      enteredAt: new Date(entry.enteredAt),
      outcome: entry.outcome,
    })),
  );
  return json(200, result satisfies HistoryImported);
}
