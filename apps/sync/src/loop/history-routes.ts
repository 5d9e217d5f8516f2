import { HistoryBody, type HistoryImported } from "@sds/sync-client";
import { MAX_BATCH_BODY_BYTES, readJsonBody } from "../http/request-body.ts";
import { json, type Reply } from "../http/respond.ts";
import type { RouteRequest } from "../http/route-module.ts";
import type { LoopContext } from "./loop-context.ts";

/**
 * `POST /v1/respondents/history`: entries a respondent made elsewhere (before sds-sync, or
 * through another system), so that routing keeps them out of surveys they already entered and
 * of those surveys' groups. Idempotent per (uid, survey, time). Imported entries are history,
 * not conversions: they never count in conversion or earnings. Each `enteredAt` is from 2000 on
 * and at most `ENTERED_AT_CLOCK_SKEW_MS` ahead of this server's clock: the body's schema checks it
 * here, as it is parsed (400 otherwise), and the CLI checks the same against its own clock.
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
